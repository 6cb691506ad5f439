// One side of a scored pair, read frame by frame as pictures (engine/input_picture.h), whatever
// the file: raw .yuv and .y4m through ssimd's own readers, anything else through FFmpeg (decoded,
// and for a rendition upscaled to the source's size and pixel format, here or by the scorer).
#ifndef SSIMD_ENGINE_MEDIA_VIDEO_INPUT_H_
#define SSIMD_ENGINE_MEDIA_VIDEO_INPUT_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "engine/input_picture.h"
#include "engine/io/frame_reader.h"
#include "engine/io/input_kind.h"
#include "engine/luma_scale_plan.h"
#include "engine/media/luma_scale_check.h"
#include "engine/media/media_info.h"
#include "engine/media/picture_memory_budget.h"
#include "engine/media/picture_scaler.h"
#include "engine/media/segmented_decoding.h"
#include "engine/media/video_decoder.h"
#include "engine/picture.h"

namespace ssimd {

// Where one Read's time went, for the decode and scale stages of the server's metrics; a stage
// that did not happen is unset (raw files are only read, pictures of the target size not scaled).
struct ReadTimes {
  std::optional<double> decode_seconds;  // demuxing and decoding
  std::optional<double> scale_seconds;   // upscaling and pixel-format conversion
};

// "1920x1080 8-bit", for messages.
std::string GeometryText(const Geometry& geometry);

class VideoInput {
 public:
  virtual ~VideoInput() = default;

  // The geometry pictures are scored at: ReadPlanes's planes, and Read's pictures once upscaled.
  virtual const Geometry& geometry() const = 0;
  // From the file (.y4m header, container); unknown for raw files.
  virtual FrameRate frame_rate() const = 0;
  virtual const std::string& name() const = 0;
  // The next frame into *out, as it lies: in host memory, or in a GPU's memory where a video
  // engine left it (DecodedInput::KeepPicturesOnDevice), with the upscale still to do where the
  // scorer does it (DecodedInput::UpscaleOnScorer). *out's host buffer is reused. False after the
  // last frame.
  virtual absl::StatusOr<bool> Read(Picture* out) = 0;
  // For readers that want host bytes only: the next frame's luma at geometry(), tightly packed,
  // followed by its Cb and Cr planes where keeps_chroma() (the raw .yuv layout), into *planes
  // (its buffer reused): a device picture is copied to the host, and a pending upscale done with
  // the host model.
  absl::StatusOr<bool> ReadPlanes(std::string* planes);
  // Before the first read: every picture from now on carries its chroma planes, at geometry()
  // (Picture::has_chroma), for metrics that score chroma. Nothing for 4:0:0 inputs, and for
  // inputs that have no chroma to give (keeps_chroma() says which).
  virtual void KeepChroma() {}
  virtual bool keeps_chroma() const { return false; }
  // Frames returned or skipped so far.
  virtual uint64_t frames_read() const = 0;
  // Frames in the whole file where that is known without reading it (raw files); for progress.
  virtual std::optional<uint64_t> EstimatedFrames() const { return std::nullopt; }
  // Codec, size and duration of the file; by default a raw file of geometry()'s size.
  virtual MediaInfo media_info() const;
  // Of the last Read that returned a frame.
  virtual ReadTimes last_read_times() const { return ReadTimes(); }
  // Who decodes the file ("cpu", "nvdec", "vaapi"); empty for raw files. Settled with the first
  // frame, as a device's engine may refuse a stream only then.
  virtual std::string decode_backend() const { return ""; }
  // Why a file meant for a device's engine is decoded on the CPU (kNone otherwise).
  virtual DecodeFallback decode_fallback() const { return DecodeFallback::kNone; }
  // Which of the engines' limits the file crossed, for kEngineLimits (else empty).
  virtual std::string decode_fallback_detail() const { return ""; }

  // True when frames can be read in any order and from several threads at once through
  // ReadPlanesAt (raw files on disk, engine/io/frame_reader.h).
  virtual bool positional() const { return false; }
  // Frame `index`'s planes (counting from the file's first frame, skipped ones included), as
  // ReadPlanes would return them; does not move the input. Only where positional().
  virtual absl::StatusOr<bool> ReadPlanesAt(uint64_t index, std::string* planes) const;

  // Skips `frames` frames; INVALID_ARGUMENT naming the file when it has fewer.
  virtual absl::Status Skip(uint64_t frames);
  // Reads to the end (at most `limit` more frames when limit > 0); returns how many there were.
  absl::StatusOr<uint64_t> CountRemaining(uint64_t limit);

  // Memory reserved for this input's pictures (picture_memory_budget.h), given back after the
  // input's own members are gone.
  void HoldReservation(PictureMemoryBudget::Reservation reservation) {
    reservation_ = std::move(reservation);
  }
  int64_t reserved_bytes() const { return reservation_.bytes(); }

 private:
  PictureMemoryBudget::Reservation reservation_;
};

// Takes over `fd`. `raw_geometry` is needed for kRawYuv and checked against a .y4m header.
// Pictures over `limits` (the raw geometry, or the .y4m header's) are refused before any is
// read, with RESOURCE_EXHAUSTED as CheckPictureSize words it.
absl::StatusOr<std::unique_ptr<VideoInput>> OpenRawInput(
    int fd, std::string name, InputKind kind, const std::optional<Geometry>& raw_geometry,
    const DecodeLimits& limits = DecodeLimits());

// What a raw or .y4m input of `geometry` holds at once, for its reservation of the server's
// budget (DecodedInput::PictureMemoryBytes for encoded files): one whole frame, its luma as read
// and its chroma, which is read past through a scratch buffer where the file cannot be seeked.
int64_t RawPictureMemoryBytes(const Geometry& geometry);

// A file FFmpeg decodes. Its pictures come out as decoded until ScaleTo is called.
class DecodedInput final : public VideoInput {
 public:
  // Takes over `fd`; INVALID_ARGUMENT (naming the file) for what VideoDecoder refuses and for
  // pixel formats ssimd does not score.
  // With `hardware`, decoded by that device's engine where it can be (VideoDecoder::OpenFd).
  static absl::StatusOr<std::unique_ptr<DecodedInput>> Open(
      int fd, std::string name, const DecodeLimits& limits,
      std::shared_ptr<HwDecodeDevice> hardware = nullptr);

  // From now on every picture is brought to `target`'s size and pixel format the way
  // `ffmpeg -vf scale=W:H:flags=<choice> -pix_fmt <target's format>` would.
  void ScaleTo(const Geometry& target, const ScalerChoice& choice);
  // After ScaleTo: leave the upscale to the scorer where a plan reproduces libswscale for this
  // file (luma_scale_check.h), its chroma's too after KeepChroma; the result says whether it
  // does, or why not. Pictures that differ from what was planned (a full-range picture) are still
  // scaled here.
  CheckedPlan UpscaleOnScorer();
  // The most the input holds at once in decoded and scaled pictures when it is decoded with
  // `decoders` decoders (DecodeWith) and, with `scaled`, brought to another size or format
  // (ScaleTo) of geometry `scored`: its decoders' bounds (VideoDecoder::memory_bound(), which
  // they are held to), pictures brought back from a device, and the scaled picture. Pictures
  // handed out (Read) are the caller's.
  int64_t PictureMemoryBytes(int decoders, bool scaled, const Geometry& scored) const;
  // Before the first Read: decode the file with `decoders` decoders at once, each taking
  // the next free segment between split points (segmented_decoding.h; with a device, each holds
  // a session of its own); 1 keeps one decoder. The pictures are the same either way. On error
  // (a decoder could not be opened) the one decoder stays.
  absl::Status DecodeWith(int decoders);
  // Lets pictures decoded by NVDEC stay in device memory for Read where no scaling on
  // the CPU is needed (none, or the scorer's upscale; docs/adr/0083); ReadPlanes still copies them
  // to the host. Does nothing where the file is not decoded by an engine whose pictures can stay
  // (HwDecodeDevice::PictureDevice).
  void KeepPicturesOnDevice();

  // The file's own geometry, before any scaling.
  const Geometry& decoded_geometry() const { return decoded_geometry_; }
  const VideoStreamInfo& info() const { return info_; }

  const Geometry& geometry() const override { return geometry_; }
  FrameRate frame_rate() const override { return info_.frame_rate; }
  const std::string& name() const override { return name_; }
  absl::StatusOr<bool> Read(Picture* out) override;
  // A picture kept on the device brings its chroma to the host; pictures scaled here carry the
  // scaled chroma.
  void KeepChroma() override { keep_chroma_ = geometry_.chroma != ChromaFormat::k400; }
  bool keeps_chroma() const override { return keep_chroma_; }
  uint64_t frames_read() const override;
  MediaInfo media_info() const override;
  ReadTimes last_read_times() const override { return last_read_times_; }
  std::string decode_backend() const override;
  DecodeFallback decode_fallback() const override;
  std::string decode_fallback_detail() const override;

 private:
  DecodedInput(std::unique_ptr<VideoDecoder> decoder, const DecodeLimits& limits,
               const Geometry& geometry, std::shared_ptr<HwDecodeDevice> hardware);
  // Whether `picture` is one the scorer's plan was made for.
  bool PlannedFor(const AVFrame& picture) const;
  // The picture's pixel format in software terms (a device's frame has the stream's).
  AVPixelFormat SoftwareFormat(const AVFrame& picture) const;
  // Whether Read may hand `picture` on where it lies.
  bool StaysOnDevice(const AVFrame& picture) const;
  // `picture` (a device frame) copied to the host into brought_to_host_, as libavcodec's software
  // decoder would give it; errors name the file and frame.
  absl::StatusOr<const AVFrame*> Download(const AVFrame& picture);

  // One decoder, or (DecodeWith) several behind `segmented_`, which then owns the first.
  std::unique_ptr<VideoDecoder> decoder_;
  std::unique_ptr<SegmentedDecoding> segmented_;
  const std::string name_;
  const DecodeLimits limits_;
  // The stream as opened; a decoder that settles the pixel format only with the first picture
  // updates it then.
  VideoStreamInfo info_;
  const Geometry decoded_geometry_;
  Geometry geometry_;
  std::unique_ptr<PictureScaler> scaler_;
  ScalerChoice scaler_choice_;
  // With the scorer's upscale (UpscaleOnScorer): its plan, and the geometry of the pictures it
  // reads (the file's size, geometry_'s depth and chroma).
  std::shared_ptr<const LumaScalePlan> scorer_upscale_;
  Geometry planned_geometry_;
  ReadTimes last_read_times_;
  // Pictures in device memory (KeepPicturesOnDevice): the decoding device, the GPU that holds
  // its pictures, and frames for those copied to the host after all.
  std::shared_ptr<HwDecodeDevice> hardware_;
  std::optional<int> picture_device_;
  AvFramePtr downloaded_;
  AvFramePtr brought_to_host_;
  bool keep_chroma_ = false;
};

// A file as its opener hands it over. Every input reads through `input`; an encoded one is
// also kept as the DecodedInput it is (`decoded`: the same object, null for raw and .y4m files)
// for what only decoding does, before reading starts: ScaleTo, UpscaleOnScorer,
// KeepPicturesOnDevice, DecodeWith. `decoded` lives as long as `input`.
struct OpenedInput {
  static OpenedInput Raw(std::unique_ptr<VideoInput> input) { return {std::move(input), nullptr}; }
  static OpenedInput Decoded(std::unique_ptr<DecodedInput> input) {
    DecodedInput* decoded = input.get();
    return {std::move(input), decoded};
  }

  std::unique_ptr<VideoInput> input;
  DecodedInput* decoded = nullptr;
};

// Checks `distorted` against `reference` and makes it deliver pictures at the reference's size
// and pixel format with `scaler`. INVALID_ARGUMENT for different bit depths or different frame
// rates (where both files state one).
absl::Status FitToReference(const VideoInput& reference, absl::string_view reference_field,
                            DecodedInput& distorted, absl::string_view distorted_field,
                            const ScalerChoice& scaler);
// The same for a file as opened: raw and .y4m files, which are never scaled, are also refused
// (INVALID_ARGUMENT) for a size other than the reference's.
absl::Status FitToReference(const VideoInput& reference, absl::string_view reference_field,
                            const OpenedInput& distorted, absl::string_view distorted_field,
                            const ScalerChoice& scaler);

// Makes `distorted` keep its chroma planes (KeepChroma) for a metric that compares them with
// `reference`'s, which the caller has made keep its own. After FitToReference, which converts a
// decoded file to the reference's layout. INVALID_ARGUMENT naming `distorted_field` when its
// chroma layout still differs (raw and .y4m files are never converted).
absl::Status KeepChromaLike(const VideoInput& reference, absl::string_view reference_field,
                            VideoInput& distorted, absl::string_view distorted_field);

}  // namespace ssimd

#endif  // SSIMD_ENGINE_MEDIA_VIDEO_INPUT_H_
