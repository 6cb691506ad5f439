#include "engine/media/video_input.h"

#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "engine/media/decode_error.h"
#include "engine/media/device_picture.h"
#include "engine/media/frame_planes.h"
#include "engine/media/hw_frame_download.h"
#include "engine/media/pixel_formats.h"

namespace ssimd {
namespace {

// "num:den" from a .y4m header; unknown when absent or malformed.
FrameRate ParseY4mRate(absl::string_view text) {
  std::pair<std::string, std::string> parts = absl::StrSplit(text, ':');
  FrameRate rate;
  if (!absl::SimpleAtoi(parts.first, &rate.num) || !absl::SimpleAtoi(parts.second, &rate.den)) {
    return FrameRate();
  }
  return rate;
}

class RawInput final : public VideoInput {
 public:
  RawInput(std::unique_ptr<FrameReader> reader, uint64_t size_bytes)
      : reader_(std::move(reader)),
        rate_(ParseY4mRate(reader_->frame_rate())),
        size_bytes_(size_bytes) {}

  const Geometry& geometry() const override { return reader_->geometry(); }
  FrameRate frame_rate() const override { return rate_; }
  const std::string& name() const override { return reader_->name(); }
  absl::StatusOr<bool> Read(Picture* out) override {
    return reader_->ReadPlanes(out->ResetOnHostPlanes(geometry(), reader_->keeps_chroma()));
  }
  void KeepChroma() override {
    if (geometry().chroma != ChromaFormat::k400) reader_->KeepChroma();
  }
  bool keeps_chroma() const override { return reader_->keeps_chroma(); }
  uint64_t frames_read() const override { return reader_->frames_read(); }
  absl::Status Skip(uint64_t frames) override { return reader_->Skip(frames); }
  bool positional() const override { return reader_->positional(); }
  absl::StatusOr<bool> ReadPlanesAt(uint64_t index, std::string* planes) const override {
    return reader_->ReadPlanesAt(index, planes);
  }
  std::optional<uint64_t> EstimatedFrames() const override { return reader_->EstimatedFrames(); }
  MediaInfo media_info() const override {
    MediaInfo info = VideoInput::media_info();
    info.size_bytes = size_bytes_;
    return info;
  }

 private:
  std::unique_ptr<FrameReader> reader_;
  const FrameRate rate_;
  const uint64_t size_bytes_;
};

// A regular file's size; 0 for anything else (a pipe has no size to speak of).
uint64_t RegularFileSize(int fd) {
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 0) return 0;
  return static_cast<uint64_t>(st.st_size);
}

}  // namespace

std::string GeometryText(const Geometry& g) {
  return absl::StrFormat("%dx%d %d-bit", g.width, g.height, g.bit_depth);
}

absl::StatusOr<bool> VideoInput::ReadPlanes(std::string* planes) {
  Picture picture;
  picture.AdoptBuffer(std::move(*planes));
  absl::StatusOr<bool> got = Read(&picture);
  if (got.ok() && *got) {
    absl::Status host = picture.BringToHost();
    if (host.ok()) host = picture.UpscaleOnHost();
    if (!host.ok()) return absl::Status(host.code(), absl::StrCat(name(), ": ", host.message()));
  }
  *planes = picture.TakeBuffer();
  return got;
}

absl::Status VideoInput::Skip(uint64_t frames) {
  Picture scratch;  // skipped where it lies
  for (uint64_t i = 0; i < frames; ++i) {
    absl::StatusOr<bool> got = Read(&scratch);
    if (!got.ok()) return got.status();
    if (!*got) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s: cannot skip %d frames: the file has only %d", name(), frames, frames_read()));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<bool> VideoInput::ReadPlanesAt(uint64_t, std::string*) const {
  return absl::FailedPreconditionError(
      absl::StrCat(name(), ": frames of this input can only be read in order"));
}

MediaInfo VideoInput::media_info() const {
  MediaInfo info;
  info.width = geometry().width;
  info.height = geometry().height;
  return info;
}

absl::StatusOr<uint64_t> VideoInput::CountRemaining(uint64_t limit) {
  Picture scratch;  // counted where it lies
  uint64_t count = 0;
  while (limit == 0 || count < limit) {
    absl::StatusOr<bool> got = Read(&scratch);
    if (!got.ok()) return got.status();
    if (!*got) break;
    ++count;
  }
  return count;
}

absl::StatusOr<std::unique_ptr<VideoInput>> OpenRawInput(
    int fd, std::string name, InputKind kind, const std::optional<Geometry>& raw_geometry,
    const DecodeLimits& limits) {
  const FileFormat format = kind == InputKind::kY4m ? FileFormat::kY4m : FileFormat::kRawYuv;
  const uint64_t size_bytes = RegularFileSize(fd);
  absl::StatusOr<std::unique_ptr<FrameReader>> reader =
      FrameReader::FromFd(fd, std::move(name), format, raw_geometry);
  if (!reader.ok()) return reader.status();
  // Opening read the header only; nothing of a picture's size is allocated before this check.
  const Geometry& geometry = (*reader)->geometry();
  if (absl::Status s = CheckPictureSize(
          limits, (*reader)->name(),
          kind == InputKind::kY4m ? "the y4m header declares pictures of"
                                  : "config.geometry gives the raw file pictures of",
          geometry.width, geometry.height);
      !s.ok()) {
    return s;
  }
  return std::make_unique<RawInput>(*std::move(reader), size_bytes);
}

int64_t RawPictureMemoryBytes(const Geometry& geometry) {
  return static_cast<int64_t>(FrameBytes(geometry));
}

namespace {

// Pictures waiting per decoder of a file decoded by `decoders` at once: what fits in a fixed
// budget, within [2, 64]. Decoded pictures hold every plane; the budget bounds one file's memory
// whatever its size (bench/results/2026-12-05-dev-segmented-decode: more ahead helps little past
// a few dozen).
size_t PicturesAheadPerDecoder(int decoders, const Geometry& decoded) {
  constexpr int64_t kBudgetBytes = int64_t{384} << 20;
  const int64_t picture_bytes = std::max<int64_t>(1, static_cast<int64_t>(FrameBytes(decoded)));
  return static_cast<size_t>(
      std::clamp<int64_t>(kBudgetBytes / (std::max(1, decoders) * picture_bytes), 2, 64));
}

// Pictures the reader of one decoder holds at once besides those the decoder keeps: with
// several decoders, its queue of pictures ahead, the one handed out, and the one it is queueing.
int PicturesHeldPerDecoder(int decoders, const Geometry& decoded) {
  if (decoders <= 1) return 1;
  return static_cast<int>(PicturesAheadPerDecoder(decoders, decoded)) + 2;
}

}  // namespace

DecodedInput::DecodedInput(std::unique_ptr<VideoDecoder> decoder, const DecodeLimits& limits,
                           const Geometry& geometry, std::shared_ptr<HwDecodeDevice> hardware)
    : decoder_(std::move(decoder)),
      name_(decoder_->name()),
      limits_(limits),
      info_(decoder_->info()),
      decoded_geometry_(geometry),
      geometry_(geometry),
      hardware_(std::move(hardware)) {}

void DecodedInput::KeepPicturesOnDevice() {
  if (hardware_ == nullptr) return;
  absl::StatusOr<int> device = hardware_->PictureDevice();
  if (!device.ok()) return;
  picture_device_ = *device;
  if (segmented_ != nullptr) {
    segmented_->KeepPicturesOnDevice();
  } else {
    decoder_->KeepPicturesOnDevice();
  }
}

int64_t DecodedInput::PictureMemoryBytes(int decoders, bool scaled,
                                         const Geometry& scored) const {
  decoders = std::max(1, decoders);
  const DecoderMemory one =
      decoder_->MemoryBoundWith(PicturesHeldPerDecoder(decoders, decoded_geometry_));
  int64_t bytes = decoders * one.bytes;
  if (hardware_ != nullptr) {
    // Pictures brought back from the device: two in each decoder, two in the input.
    bytes += (2 * decoders + 2) * one.picture_bytes;
  }
  if (scaled) {
    bytes += PaddedPictureBytes(PixelFormatForGeometry(scored), scored.width, scored.height);
  }
  return bytes;
}

absl::Status DecodedInput::DecodeWith(int decoders) {
  if (decoders <= 1 || segmented_ != nullptr) return absl::OkStatus();
  SegmentedDecodingOptions options;
  options.decoders = decoders;
  options.pictures_ahead = PicturesAheadPerDecoder(decoders, decoded_geometry_);
  // Every decoder, the first one too, is held to a bound that counts its queue.
  DecodeLimits limits = limits_;
  limits.pictures_held_by_reader = PicturesHeldPerDecoder(decoders, decoded_geometry_);
  decoder_->SetPicturesHeldByReader(limits.pictures_held_by_reader);
  absl::StatusOr<std::unique_ptr<SegmentedDecoding>> segmented =
      SegmentedDecoding::Start(decoder_, limits, options);
  if (!segmented.ok()) {
    // The one decoder stays, with the bound it had.
    decoder_->SetPicturesHeldByReader(limits_.pictures_held_by_reader);
    return segmented.status();
  }
  segmented_ = *std::move(segmented);
  // The decoders opened beside the first one learn it too.
  if (picture_device_.has_value()) segmented_->KeepPicturesOnDevice();
  return absl::OkStatus();
}

uint64_t DecodedInput::frames_read() const {
  return segmented_ != nullptr ? segmented_->frames_decoded() : decoder_->frames_decoded();
}

std::string DecodedInput::decode_backend() const {
  return segmented_ != nullptr ? segmented_->decode_backend() : decoder_->decode_backend();
}

DecodeFallback DecodedInput::decode_fallback() const {
  return segmented_ != nullptr ? segmented_->decode_fallback() : decoder_->decode_fallback();
}

std::string DecodedInput::decode_fallback_detail() const {
  return segmented_ != nullptr ? segmented_->decode_fallback_detail()
                               : decoder_->decode_fallback_detail();
}

absl::StatusOr<std::unique_ptr<DecodedInput>> DecodedInput::Open(
    int fd, std::string name, const DecodeLimits& limits,
    std::shared_ptr<HwDecodeDevice> hardware) {
  absl::StatusOr<std::unique_ptr<VideoDecoder>> decoder =
      VideoDecoder::OpenFd(fd, name, limits, hardware);
  if (!decoder.ok()) return decoder.status();
  const VideoStreamInfo& info = (*decoder)->info();
  absl::StatusOr<Geometry> geometry =
      GeometryForPixelFormat(info.pixel_format, info.width, info.height);
  if (!geometry.ok()) {
    return DecodeError(
        DecodeErrorKind::kUnsupportedFormat,
        absl::StrFormat("%s: %s video: %s", name, info.codec, geometry.status().message()));
  }
  absl::Status valid = ValidateGeometry(*geometry);
  if (!valid.ok()) {
    return DecodeError(DecodeErrorKind::kUnsupportedFormat,
                       absl::StrCat(name, ": ", valid.message()));
  }
  return std::unique_ptr<DecodedInput>(
      new DecodedInput(*std::move(decoder), limits, *geometry, std::move(hardware)));
}

MediaInfo DecodedInput::media_info() const {
  const VideoStreamInfo& stream = info_;
  MediaInfo info;
  info.codec = stream.codec;
  info.duration_seconds = stream.duration_seconds;
  info.size_bytes = stream.size_bytes;
  info.width = decoded_geometry_.width;
  info.height = decoded_geometry_.height;
  return info;
}

void DecodedInput::ScaleTo(const Geometry& target, const ScalerChoice& choice) {
  geometry_ = target;
  scaler_choice_ = choice;
  scaler_ = std::make_unique<PictureScaler>(target.width, target.height,
                                            PixelFormatForGeometry(target), choice);
}

CheckedPlan DecodedInput::UpscaleOnScorer() {
  if (scaler_ == nullptr || (geometry_.width == decoded_geometry_.width &&
                             geometry_.height == decoded_geometry_.height)) {
    CheckedPlan none;
    none.refusal = UpscaleRefusal::kGeometry;
    none.why = absl::FailedPreconditionError("the pictures are not upscaled");
    return none;
  }
  const VideoStreamInfo& stream = info_;
  CheckedPlan checked = CachedPlanCheckedAgainstLibswscale(
      {stream.width, stream.height, stream.pixel_format, AVCOL_RANGE_UNSPECIFIED, geometry_.width,
       geometry_.height, PixelFormatForGeometry(geometry_), scaler_choice_, keep_chroma_});
  scorer_upscale_ = checked.plan;
  if (scorer_upscale_ != nullptr) {
    planned_geometry_ = geometry_;
    planned_geometry_.width = scorer_upscale_->src_width;
    planned_geometry_.height = scorer_upscale_->src_height;
  }
  return checked;
}

bool DecodedInput::PlannedFor(const AVFrame& picture) const {
  // Limited range and unspecified give libswscale the same luma; full range is converted.
  return picture.width == scorer_upscale_->src_width &&
         picture.height == scorer_upscale_->src_height &&
         SoftwareFormat(picture) == info_.pixel_format &&
         picture.color_range != AVCOL_RANGE_JPEG;
}

AVPixelFormat DecodedInput::SoftwareFormat(const AVFrame& picture) const {
  return IsDeviceFrame(picture) ? info_.pixel_format : static_cast<AVPixelFormat>(picture.format);
}

bool DecodedInput::StaysOnDevice(const AVFrame& picture) const {
  if (!picture_device_.has_value() || !IsDeviceFrame(picture)) return false;
  return scaler_ == nullptr ||
         scaler_->Unchanged(picture.width, picture.height, SoftwareFormat(picture)) ||
         (scorer_upscale_ != nullptr && PlannedFor(picture));
}

absl::StatusOr<const AVFrame*> DecodedInput::Download(const AVFrame& picture) {
  if (downloaded_ == nullptr) downloaded_.reset(av_frame_alloc());
  if (brought_to_host_ == nullptr) brought_to_host_.reset(av_frame_alloc());
  if (downloaded_ == nullptr || brought_to_host_ == nullptr) {
    return absl::ResourceExhaustedError("out of memory for a decoded picture");
  }
  if (absl::Status s = DownloadHardwarePicture(picture, info_.pixel_format, downloaded_.get(),
                                               brought_to_host_.get());
      !s.ok()) {
    return absl::Status(s.code(), absl::StrFormat("%s: frame %d: %s", name(), frames_read() - 1,
                                                  s.message()));
  }
  return brought_to_host_.get();
}

absl::StatusOr<bool> DecodedInput::Read(Picture* out) {
  using Clock = std::chrono::steady_clock;
  const auto seconds = [](Clock::duration d) { return std::chrono::duration<double>(d).count(); };
  const Clock::time_point start = Clock::now();
  absl::StatusOr<const AVFrame*> frame =
      segmented_ != nullptr ? segmented_->Next() : decoder_->Next();
  if (!frame.ok()) return frame.status();
  if (*frame == nullptr) return false;
  if (frames_read() == 1) info_.pixel_format = SoftwareFormat(**frame);
  const Clock::time_point decoded = Clock::now();
  last_read_times_ = ReadTimes{seconds(decoded - start), std::nullopt};
  const AVFrame* picture = *frame;
  if (StaysOnDevice(*picture)) {
    absl::StatusOr<std::shared_ptr<const DevicePlane>> plane =
        MakeDevicePictureLuma(*picture, info_.pixel_format, *picture_device_);
    if (!plane.ok()) return plane.status();
    const bool planned = scorer_upscale_ != nullptr && PlannedFor(*picture);
    const Geometry& geometry = planned ? planned_geometry_ : geometry_;
    std::shared_ptr<const LumaScalePlan> upscale = planned ? scorer_upscale_ : nullptr;
    if (!keep_chroma_) {
      out->ResetOnDevice(*std::move(plane), geometry, std::move(upscale));
      return true;
    }
    // Interleaved chroma stays beside the luma; planar chroma (4:4:4) comes to the host (the
    // picture is copied whole, at its decoded size, and its chroma rearranged), and the luma is
    // still read where it lies.
    absl::StatusOr<std::shared_ptr<const DevicePlane>> chroma_plane =
        MakeDevicePictureChroma(*picture, info_.pixel_format, *picture_device_);
    if (!chroma_plane.ok()) return chroma_plane.status();
    if (*chroma_plane != nullptr) {
      out->ResetOnDeviceWithChroma(*std::move(plane), *std::move(chroma_plane), geometry,
                                   std::move(upscale));
      return true;
    }
    if (downloaded_ == nullptr) downloaded_.reset(av_frame_alloc());
    if (downloaded_ == nullptr) {
      return absl::ResourceExhaustedError("out of memory for a decoded picture");
    }
    std::string* chroma =
        out->ResetOnDeviceWithHostChroma(*std::move(plane), geometry, std::move(upscale));
    if (absl::Status s =
            DownloadHardwareChroma(*picture, info_.pixel_format, downloaded_.get(), chroma);
        !s.ok()) {
      return absl::Status(s.code(), absl::StrFormat("%s: frame %d: %s", name(),
                                                    frames_read() - 1, s.message()));
    }
    return true;
  }
  if (IsDeviceFrame(*picture)) {
    // Scaled by libswscale first, or not kept on the device.
    absl::StatusOr<const AVFrame*> on_host = Download(*picture);
    if (!on_host.ok()) return on_host.status();
    picture = *on_host;
  }
  const bool planned = scorer_upscale_ != nullptr && PlannedFor(*picture);
  if (scaler_ != nullptr && !planned) {
    absl::StatusOr<const AVFrame*> scaled = scaler_->Convert(*picture);
    if (!scaled.ok()) {
      return absl::Status(scaled.status().code(),
                          absl::StrFormat("%s: frame %d: %s", name(), frames_read() - 1,
                                          scaled.status().message()));
    }
    picture = *scaled;
    last_read_times_.scale_seconds = seconds(Clock::now() - decoded);
  }
  // A picture the scorer's plan did not fit was scaled here and has no upscale pending.
  std::string* planes = planned
                            ? out->ResetOnHostPlanes(planned_geometry_, keep_chroma_,
                                                     scorer_upscale_)
                            : out->ResetOnHostPlanes(geometry_, keep_chroma_);
  if (keep_chroma_) {
    CopyLumaAndChroma(*picture, planes);
  } else {
    CopyLuma(*picture, planes);
  }
  return true;
}

namespace {

// What holds for every pair, scaled or not: the same bit depth and frame rate.
absl::Status CheckPairable(const VideoInput& reference, absl::string_view reference_field,
                           const VideoInput& distorted, absl::string_view distorted_field) {
  const Geometry& ref = reference.geometry();
  const Geometry& dis = distorted.geometry();
  if (ref.bit_depth != dis.bit_depth) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: %s is %d-bit but %s (%s) is %d-bit; score renditions against a source of the same "
        "bit depth",
        distorted_field, distorted.name(), dis.bit_depth, reference_field, reference.name(),
        ref.bit_depth));
  }
  const FrameRate ref_rate = reference.frame_rate();
  const FrameRate dis_rate = distorted.frame_rate();
  if (ref_rate.known() && dis_rate.known() && !SameFrameRate(ref_rate, dis_rate)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: %s runs at %s frames per second but %s (%s) at %s; frames can only be paired "
        "between files of the same frame rate",
        distorted_field, distorted.name(), FrameRateText(dis_rate), reference_field,
        reference.name(), FrameRateText(ref_rate)));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status FitToReference(const VideoInput& reference, absl::string_view reference_field,
                            DecodedInput& distorted, absl::string_view distorted_field,
                            const ScalerChoice& scaler) {
  if (absl::Status s = CheckPairable(reference, reference_field, distorted, distorted_field);
      !s.ok()) {
    return s;
  }
  distorted.ScaleTo(reference.geometry(), scaler);
  return absl::OkStatus();
}

absl::Status FitToReference(const VideoInput& reference, absl::string_view reference_field,
                            const OpenedInput& distorted, absl::string_view distorted_field,
                            const ScalerChoice& scaler) {
  if (distorted.decoded != nullptr) {
    return FitToReference(reference, reference_field, *distorted.decoded, distorted_field,
                          scaler);
  }
  const Geometry& ref = reference.geometry();
  const Geometry& dis = distorted.input->geometry();
  if (ref.width != dis.width || ref.height != dis.height || ref.bit_depth != dis.bit_depth) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: %s, but %s is %s; raw and .y4m files are not scaled, so both files must have the "
        "same luma size and bit depth (encoded renditions are upscaled)",
        distorted_field, GeometryText(dis), reference_field, GeometryText(ref)));
  }
  return CheckPairable(reference, reference_field, *distorted.input, distorted_field);
}

absl::Status KeepChromaLike(const VideoInput& reference, absl::string_view reference_field,
                            VideoInput& distorted, absl::string_view distorted_field) {
  const ChromaFormat want = reference.geometry().chroma;
  const ChromaFormat have = distorted.geometry().chroma;
  if (have != want) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: %s is %s, but %s (%s) is %s; psnr compares the chroma planes (enable_chroma, "
        "libvmaf's default), so raw and .y4m files must have the same chroma layout (or ask "
        "psnr=enable_chroma=false)",
        distorted_field, distorted.name(), ChromaFormatName(have), reference_field,
        reference.name(), ChromaFormatName(want)));
  }
  distorted.KeepChroma();
  return absl::OkStatus();
}

}  // namespace ssimd
