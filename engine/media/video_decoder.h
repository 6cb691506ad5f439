// Demuxes and decodes the first video stream of a media file with FFmpeg's libavformat and
// libavcodec: whatever container and codec Debian's FFmpeg reads. Input comes from an open
// descriptor (the server opens files itself, inside its files root) or from memory; the decoder
// never opens anything else (playlists and references to other files are refused).
#ifndef SSIMD_ENGINE_MEDIA_VIDEO_DECODER_H_
#define SSIMD_ENGINE_MEDIA_VIDEO_DECODER_H_

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "engine/media/av_handles.h"
#include "engine/media/decode_error.h"
#include "engine/media/decoder_memory.h"
#include "engine/media/hw_decode_device.h"
#include "engine/picture.h"

namespace ssimd {

struct FrameRate {
  int num = 0;
  int den = 1;
  bool known() const { return num > 0 && den > 0; }
};

std::string FrameRateText(const FrameRate& rate);  // "24/1", or "unknown"
// Equal as rationals (30000/1001 equals 60000/2002); unknown rates equal nothing.
bool SameFrameRate(const FrameRate& a, const FrameRate& b);

// Bounds on what a file may make the decoder allocate. They hold on what is decoded, not only on
// what the container declares: the container's size is checked before anything is decoded, the
// decoders that probe the stream and the one that decodes it refuse larger pictures, and once
// the stream is opened its decoder is held to the memory of the stream's own pictures
// (memory_bound()).
struct DecodeLimits {
  int max_dimension = kMaxDimension;
  int64_t max_pixels = kMaxPixels;
  // What sets max_pixels, named in messages (e.g. "--max_picture_pixels"); may be empty.
  std::string max_pixels_source;
  // Pictures the decoder's reader holds at once besides those the decoder keeps: the one
  // Next() returned, or a queue of them (segmented decoding).
  int pictures_held_by_reader = 1;
};

// OK when a `width` x `height` picture is within `limits`, else RESOURCE_EXHAUSTED (decode error
// kind kOverLimits) naming the file, the size, its pixels and the limit crossed with what sets
// it: "clip.mp4: the container declares a video of 16000x16000 = 256000000 pixels a picture,
// over this server's limit of 35651584 pixels a picture (--max_picture_pixels)". `whose` says
// where the size comes from. Every input is checked this way before its first picture is read.
absl::Status CheckPictureSize(const DecodeLimits& limits, absl::string_view name,
                              absl::string_view whose, int width, int height);

struct VideoStreamInfo {
  int width = 0;
  int height = 0;
  AVPixelFormat pixel_format = AV_PIX_FMT_NONE;
  FrameRate frame_rate;
  std::string codec;      // e.g. "h264"
  std::string container;  // e.g. "mov,mp4,m4a,3gp,3g2,mj2"
  // The container's duration (or else the video stream's) where the file states one; empty when
  // libavformat could only estimate it from the bitrate.
  std::optional<double> duration_seconds;
  // Bytes of the whole input; 0 where its size cannot be known.
  uint64_t size_bytes = 0;
};

class VideoDecoder {
 public:
  // Takes over `fd` (closed on destruction, also on failure). `name` is used in messages.
  // INVALID_ARGUMENT for an unreadable container, no video stream or an unsupported codec;
  // RESOURCE_EXHAUSTED for a picture over `limits` (decode error kind kOverLimits).
  // With `hardware`, the stream is decoded by that device's engine where it can be, else on the
  // CPU with the reason in decode_fallback(); the pictures are the same either way.
  static absl::StatusOr<std::unique_ptr<VideoDecoder>> OpenFd(
      int fd, std::string name, const DecodeLimits& limits,
      std::shared_ptr<HwDecodeDevice> hardware = nullptr);
  // Reads from `bytes`, which must outlive the decoder.
  static absl::StatusOr<std::unique_ptr<VideoDecoder>> OpenMemory(
      absl::string_view bytes, std::string name, const DecodeLimits& limits,
      std::shared_ptr<HwDecodeDevice> hardware = nullptr);

  ~VideoDecoder();
  VideoDecoder(const VideoDecoder&) = delete;
  VideoDecoder& operator=(const VideoDecoder&) = delete;

  const VideoStreamInfo& info() const { return info_; }
  const std::string& name() const { return name_; }
  // Frames returned so far.
  uint64_t frames_decoded() const { return frames_decoded_; }

  // The most this decoder's pictures take at once (decoder_memory.h): pictures of the stream's
  // size and format as opened. The decoder refuses to allocate past it, and Next() then fails
  // with RESOURCE_EXHAUSTED (kOverLimits) naming what the stream wanted.
  const DecoderMemory& memory_bound() const { return memory_; }
  // The bound were the reader to hold `pictures` of the decoder's pictures at once.
  DecoderMemory MemoryBoundWith(int pictures_held_by_reader) const;
  // Before the first Next(): the reader holds up to `pictures` pictures at once from now on;
  // raises memory_bound() to match.
  void SetPicturesHeldByReader(int pictures);

  // "nvdec" or "vaapi" while a device's engine decodes the stream, else "cpu".
  const std::string& decode_backend() const;
  // Why a stream meant for a device's engine is decoded on the CPU (kNone otherwise); known once
  // the first frame is decoded, as the engine may refuse a stream only then.
  DecodeFallback decode_fallback() const { return fallback_.load(); }
  // For kEngineLimits, which limit the stream crossed ("nvdec decodes h264 4:2:0 8-bit up to
  // 4096x4096; the stream is 8192x4320"); empty otherwise.
  std::string decode_fallback_detail() const;

  // From now on, pictures the engine decodes stay in device memory where the device allows it
  // (HwDecodeDevice::PictureDevice): Next() returns them as hardware frames of their own (copied
  // out of the engine's surface and complete; their format is the device's, PictureFormat() says
  // the software one). Pictures decoded on the CPU are returned as before. Callable from another
  // thread while Next() runs.
  void KeepPicturesOnDevice();
  // The pixel format a picture of this stream has in software, also for a hardware frame.
  AVPixelFormat PictureFormat(const AVFrame& picture) const;

  // The next frame in presentation order, valid until the next call; nullptr after the last.
  // INVALID_ARGUMENT naming the file and the frame for a corrupt or truncated stream, or a frame
  // whose size or format differs from the first one's.
  absl::StatusOr<const AVFrame*> Next();

  // Which segments of a file shared by several decoders each one decodes. Called on the
  // decoder's thread, from Next().
  class SegmentClaims {
   public:
    virtual ~SegmentClaims() = default;
    // `worker` has read up to the first packet of segment `reached`, every segment it claimed
    // before lies behind it: the segment it decodes next, `reached` or later.
    virtual uint64_t ClaimNext(int worker, uint64_t reached) = 0;
  };
  // Decoding one share of the file's segments (segmented_decoding.h): the file is cut before
  // each split point (split_points.h) that ends at least `min_packets` packets of the current
  // segment, and segments are numbered from 0. This decoder decodes the segments it claims,
  // one after another without a reset between them (a split point ends every reference), and
  // skips the others' packets: with `claims`, it asks for its next segment when it reaches the
  // end of its last; without, its segments are those whose number is `worker` modulo
  // `workers`. Call before the first Next(); a file without split points is one segment.
  struct SegmentShare {
    int worker = 0;
    int workers = 1;
    int min_packets = 1;
    SegmentClaims* claims = nullptr;  // must outlive the decoding
  };
  void DecodeSegmentShare(const SegmentShare& share);
  // The segment of the frame Next() returned last.
  uint64_t segment() const { return frame_segment_; }
  // Where an error of Next() arose: the segment being decoded, or else the one being read.
  uint64_t segment_in_progress() const {
    if (failed_segment_.has_value()) return *failed_segment_;
    return segment_open_ ? decoding_segment_ : packet_segment_;
  }
  // Segments in the file, once Next() returned its end (every share reads all packets).
  uint64_t segments_seen() const { return packet_segment_ + 1; }
  // A second decoder of the same file, opened as this one was (a duplicated descriptor, or the
  // same bytes), on the same device or, with `on_cpu`, on the CPU; for decoding another share
  // of its segments.
  absl::StatusOr<std::unique_ptr<VideoDecoder>> OpenAgain(const DecodeLimits& limits,
                                                          bool on_cpu = false) const;

 private:
  struct Input;
  VideoDecoder(std::unique_ptr<Input> input, std::string name);
  static absl::StatusOr<std::unique_ptr<VideoDecoder>> Open(
      std::unique_ptr<Input> input, std::string name, const DecodeLimits& limits,
      std::shared_ptr<HwDecodeDevice> hardware);
  absl::Status OpenStream(const DecodeLimits& limits);
  // Offers the device's engine to the decoder, or records why not.
  void AttachHardware(const AVCodec& codec);
  // libavcodec's get_format callback: the device's format while the engine may decode.
  static AVPixelFormat ChooseFormat(AVCodecContext* codec, const AVPixelFormat* offered);
  // libavcodec's get_buffer2 callback: the allocation guard's.
  static int GetPictureBuffer(AVCodecContext* codec, AVFrame* frame, int flags);
  // Refuses a stream over the limits, by the size the container or the decoder states.
  absl::Status CheckSize(const DecodeLimits& limits, int width, int height,
                         absl::string_view whose) const;
  // The stream's bound from its size and format as opened, and the guard held to it.
  void BoundMemory(const AVCodec& codec, int pictures_held_by_reader);
  // A decoding error, or RESOURCE_EXHAUSTED when the allocation guard refused a picture.
  absl::Status DecodeFailure(int code, absl::string_view what) const;
  // The received frame, brought back from the device when the engine decoded it.
  absl::StatusOr<const AVFrame*> HostPicture();
  absl::Status CheckFrame(const AVFrame& frame) const;
  // "frame N" in messages; in a segment share, the frame's place in its segment.
  std::string FrameName() const;
  // Advances the segment count with the packet just read; whether it is this share's.
  bool TakeSegmentPacket();
  // The segment this share decodes next, from the first packet of segment `reached` on.
  uint64_t ClaimSegment(uint64_t reached);
  // Gives the packet about to be sent its ordinal among those sent as its timestamp, which the
  // codec carries to the picture it starts, and notes where each segment's packets begin.
  void TagSegmentPacket();
  // Packets of this share's `segment` sent to the codec.
  uint64_t PacketsInSegment(uint64_t segment) const;
  // Whether `tag` is a packet ordinal TagSegmentPacket gave, and the segment of one that is.
  bool IsSentPacket(int64_t tag) const;
  uint64_t SegmentOfPacket(uint64_t tag) const;
  // Sets the segment of a received picture from its packet's ordinal.
  absl::Status PlaceInSegment(const AVFrame& picture);
  // `error`, or in a segment share OK after setting it aside: the codec is drained, and Next()
  // returns the drained pictures of complete segments before the failing one, then `error`.
  // `in_container`: the container could not be read (else the codec failed).
  absl::Status FailAfterEarlierSegments(absl::Status error, bool in_container);
  absl::Status FrameError(DecodeErrorKind kind, absl::string_view what, int code) const;

  std::unique_ptr<Input> input_;
  const std::string name_;
  AVFormatContext* format_ = nullptr;
  AvCodecContextPtr codec_;
  AvPacketPtr packet_;
  AvFramePtr frame_;
  const AVCodec* decoder_ = nullptr;
  // The stream's size and format as opened, which its memory is bounded by.
  int bound_width_ = 0;
  int bound_height_ = 0;
  AVPixelFormat bound_format_ = AV_PIX_FMT_NONE;
  DecoderMemory memory_;
  PictureAllocationGuard guard_;
  int stream_index_ = -1;
  bool draining_ = false;
  bool ended_ = false;
  uint64_t frames_decoded_ = 0;
  VideoStreamInfo info_;
  // Hardware decoding: the device, this decoder's session on it, and where pictures come back.
  std::shared_ptr<HwDecodeDevice> hardware_;
  std::unique_ptr<HwDecodeDevice::Session> session_;
  // Written on the decoding thread, read by whoever reports on the file.
  std::atomic<DecodeFallback> fallback_{DecodeFallback::kNone};
  std::atomic<bool> engine_chosen_{false};  // get_format picked the device's format
  std::atomic<bool> keep_on_device_{false};
  AVPixelFormat software_format_ = AV_PIX_FMT_NONE;  // what the CPU decoder would output
  mutable absl::Mutex detail_mutex_;
  std::string fallback_detail_ ABSL_GUARDED_BY(detail_mutex_);
  AvFramePtr downloaded_;
  AvFramePtr converted_;
  AvFramePtr kept_;  // a picture that stays on the device, out of the engine's surface
  // Segments (DecodeSegmentShare): the share, the segment the packets read now belong to and
  // how many packets of it were read, the segment being decoded (sent to the codec) and the
  // returned frame's. The share's segments go to the codec back to back; each packet sent is
  // tagged with its ordinal (`packets_sent_`), and `segment_first_packets_` lists the ordinal
  // where each of the share's segments begins, so a picture finds its segment by its tag.
  struct SegmentStart {
    uint64_t first_packet;
    uint64_t segment;
  };
  SegmentShare share_;
  int nal_length_size_ = 0;
  uint64_t packet_segment_ = 0;
  uint64_t packets_in_segment_ = 0;
  uint64_t decoding_segment_ = 0;
  bool segment_open_ = false;
  std::optional<uint64_t> claimed_segment_;  // the last segment this share claimed
  uint64_t packets_sent_ = 0;
  std::vector<SegmentStart> segment_first_packets_;
  uint64_t frame_segment_ = 0;
  uint64_t frames_in_segment_ = 0;
  // An error set aside by FailAfterEarlierSegments, the segment where it stands, and the
  // pictures handed out before it.
  absl::Status failure_;
  std::optional<uint64_t> failed_segment_;
  std::deque<AvFramePtr> salvaged_;
};

}  // namespace ssimd

#endif  // SSIMD_ENGINE_MEDIA_VIDEO_DECODER_H_
