#include "engine/media/video_decoder.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstring>
#include <iterator>
#include <numeric>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "engine/media/decode_error.h"
#include "engine/media/hw_frame_download.h"
#include "engine/media/pixel_formats.h"
#include "engine/media/split_points.h"

extern "C" {
#include <libavutil/dict.h>
#include <libavutil/hwcontext.h>
#include <libavutil/mem.h>
#include <libavutil/pixdesc.h>
}

namespace ssimd {
namespace {

constexpr int kIoBufferBytes = 64 * 1024;

// The stream as the engines' decode table describes streams: libavcodec knows the coded size and
// the software format (chroma layout, depth) when it offers the device's format.
StreamShape ShapeOf(const AVCodecContext& codec) {
  StreamShape shape;
  shape.codec = avcodec_get_name(codec.codec_id);
  shape.coded_width = codec.coded_width > 0 ? codec.coded_width : codec.width;
  shape.coded_height = codec.coded_height > 0 ? codec.coded_height : codec.height;
  if (const AVPixFmtDescriptor* d = av_pix_fmt_desc_get(codec.sw_pix_fmt); d != nullptr) {
    shape.bit_depth = d->comp[0].depth;
    shape.chroma = d->log2_chroma_w == 0 ? 444 : d->log2_chroma_h == 0 ? 422 : 420;
  }
  return shape;
}

// Nested opens (HLS or DASH playlists, concat lists, image sequences, external references in
// mov) would reach files outside the caller's control: every such open fails.
int RefuseNestedOpen(AVFormatContext* /*s*/, AVIOContext** /*pb*/, const char* /*url*/,
                     int /*flags*/, AVDictionary** /*options*/) {
  return AVERROR(EPERM);
}

// The pixels a decoder may be told to allow (libavcodec's max_pixels option) for a limit on the
// picture's size: decoders check it on the width aligned up to 64 columns, which must not refuse
// a picture within the limit.
int64_t DecoderPixelLimit(const DecodeLimits& limits) {
  return std::min<int64_t>(limits.max_pixels + int64_t{64} * limits.max_dimension, INT_MAX);
}

// Probing the streams (avformat_find_stream_info) decodes a picture of some codecs (FFV1, VP9,
// AV1) with decoders of its own: each gets the limit as its max_pixels, so that no probe
// allocates a picture over it whatever the container declared.
class ProbeOptions {
 public:
  ProbeOptions(unsigned streams, const DecodeLimits& limits) : options_(streams, nullptr) {
    for (AVDictionary*& options : options_) {
      av_dict_set_int(&options, "max_pixels", DecoderPixelLimit(limits), 0);
    }
  }
  ~ProbeOptions() {
    for (AVDictionary*& options : options_) av_dict_free(&options);
  }
  ProbeOptions(const ProbeOptions&) = delete;
  ProbeOptions& operator=(const ProbeOptions&) = delete;
  AVDictionary** get() { return options_.empty() ? nullptr : options_.data(); }

 private:
  std::vector<AVDictionary*> options_;
};

// The duration the file states: the container's, else the stream's. A duration libavformat
// estimated from the bitrate is not stated by the file (and would make a bitrate derived from it
// circular). Absurd values (negative, not finite) are treated as absent.
std::optional<double> StatedDuration(const AVFormatContext& format, const AVStream& stream) {
  if (format.duration_estimation_method == AVFMT_DURATION_FROM_BITRATE) return std::nullopt;
  double seconds = 0;
  if (format.duration != AV_NOPTS_VALUE && format.duration > 0) {
    seconds = static_cast<double>(format.duration) / AV_TIME_BASE;
  } else if (stream.duration != AV_NOPTS_VALUE && stream.duration > 0 &&
             stream.time_base.num > 0 && stream.time_base.den > 0) {
    seconds = static_cast<double>(stream.duration) * av_q2d(stream.time_base);
  }
  if (!(seconds > 0) || !std::isfinite(seconds)) return std::nullopt;
  return seconds;
}

}  // namespace

std::string FrameRateText(const FrameRate& rate) {
  if (!rate.known()) return "unknown";
  return absl::StrCat(rate.num, "/", rate.den);
}

bool SameFrameRate(const FrameRate& a, const FrameRate& b) {
  if (!a.known() || !b.known()) return false;
  return static_cast<int64_t>(a.num) * b.den == static_cast<int64_t>(b.num) * a.den;
}

// The bytes libavformat reads, through its custom I/O callbacks. A file is read at positions of
// its own (pread), so that several decoders of one file, each with a duplicate of the descriptor,
// do not move each other's offset.
struct VideoDecoder::Input {
  int fd = -1;                // a file, or
  absl::string_view memory;   // bytes in memory
  int64_t position = 0;       // in the file or in `memory`
  AVIOContext* io = nullptr;

  ~Input() {
    if (io != nullptr) {
      av_freep(&io->buffer);
      avio_context_free(&io);
    }
    if (fd >= 0) ::close(fd);
  }

  // The whole input's size, or a negative AVERROR.
  int64_t Size() const {
    if (fd < 0) return static_cast<int64_t>(memory.size());
    struct stat st;
    return ::fstat(fd, &st) == 0 ? static_cast<int64_t>(st.st_size) : AVERROR(errno);
  }

  static int Read(void* opaque, uint8_t* buf, int size) {
    auto* in = static_cast<Input*>(opaque);
    if (in->fd >= 0) {
      ssize_t got;
      do {
        got = ::pread(in->fd, buf, static_cast<size_t>(size), in->position);
      } while (got < 0 && errno == EINTR);
      if (got < 0) return AVERROR(errno);
      in->position += got;
      return got == 0 ? AVERROR_EOF : static_cast<int>(got);
    }
    const int64_t left = static_cast<int64_t>(in->memory.size()) - in->position;
    if (left <= 0) return AVERROR_EOF;
    const int n = static_cast<int>(std::min<int64_t>(left, size));
    std::copy_n(in->memory.data() + in->position, n, buf);
    in->position += n;
    return n;
  }

  static int64_t Seek(void* opaque, int64_t offset, int whence) {
    auto* in = static_cast<Input*>(opaque);
    const int mode = whence & ~AVSEEK_FORCE;
    const int64_t size = in->Size();
    if (mode == AVSEEK_SIZE || size < 0) return size;
    int64_t target;
    switch (mode) {
      case SEEK_SET: target = offset; break;
      case SEEK_CUR: target = in->position + offset; break;
      case SEEK_END: target = size + offset; break;
      default: return AVERROR(EINVAL);
    }
    // A file may be read past its end (it reads nothing there); memory may not.
    if (target < 0 || (in->fd < 0 && target > size)) return AVERROR(EINVAL);
    in->position = target;
    return target;
  }
};

VideoDecoder::VideoDecoder(std::unique_ptr<Input> input, std::string name)
    : input_(std::move(input)), name_(std::move(name)) {}

VideoDecoder::~VideoDecoder() {
  codec_.reset();
  // The I/O context is the caller's (flag AVFMT_FLAG_CUSTOM_IO): Input frees it afterwards.
  avformat_close_input(&format_);
}

absl::StatusOr<std::unique_ptr<VideoDecoder>> VideoDecoder::OpenFd(
    int fd, std::string name, const DecodeLimits& limits,
    std::shared_ptr<HwDecodeDevice> hardware) {
  auto input = std::make_unique<Input>();
  input->fd = fd;
  return Open(std::move(input), std::move(name), limits, std::move(hardware));
}

absl::StatusOr<std::unique_ptr<VideoDecoder>> VideoDecoder::OpenMemory(
    absl::string_view bytes, std::string name, const DecodeLimits& limits,
    std::shared_ptr<HwDecodeDevice> hardware) {
  auto input = std::make_unique<Input>();
  input->memory = bytes;
  return Open(std::move(input), std::move(name), limits, std::move(hardware));
}

absl::StatusOr<std::unique_ptr<VideoDecoder>> VideoDecoder::OpenAgain(const DecodeLimits& limits,
                                                                      bool on_cpu) const {
  std::shared_ptr<HwDecodeDevice> hardware = on_cpu ? nullptr : hardware_;
  if (input_->fd < 0) return OpenMemory(input_->memory, name_, limits, std::move(hardware));
  const int fd = ::fcntl(input_->fd, F_DUPFD_CLOEXEC, 0);
  if (fd < 0) {
    return absl::ResourceExhaustedError(
        absl::StrFormat("%s: cannot open the file again (%s)", name_, std::strerror(errno)));
  }
  return OpenFd(fd, name_, limits, std::move(hardware));
}

absl::StatusOr<std::unique_ptr<VideoDecoder>> VideoDecoder::Open(
    std::unique_ptr<Input> input, std::string name, const DecodeLimits& limits,
    std::shared_ptr<HwDecodeDevice> hardware) {
  auto* buffer = static_cast<unsigned char*>(av_malloc(kIoBufferBytes));
  if (buffer == nullptr) return absl::ResourceExhaustedError("out of memory for file input");
  input->io = avio_alloc_context(buffer, kIoBufferBytes, /*write_flag=*/0, input.get(),
                                 &Input::Read, nullptr, &Input::Seek);
  if (input->io == nullptr) {
    av_free(buffer);
    return absl::ResourceExhaustedError("out of memory for file input");
  }
  std::unique_ptr<VideoDecoder> decoder(new VideoDecoder(std::move(input), std::move(name)));
  decoder->hardware_ = std::move(hardware);
  absl::Status status = decoder->OpenStream(limits);
  if (!status.ok()) return status;
  return decoder;
}

namespace {

// "this server's limit of N pixels a picture (--flag)", for messages about the pixel limit.
std::string PixelLimitText(const DecodeLimits& limits) {
  return absl::StrFormat(
      "this server's limit of %d pixels a picture%s", limits.max_pixels,
      limits.max_pixels_source.empty() ? "" : absl::StrCat(" (", limits.max_pixels_source, ")"));
}

}  // namespace

absl::Status CheckPictureSize(const DecodeLimits& limits, absl::string_view name,
                              absl::string_view whose, int width, int height) {
  const int64_t pixels = static_cast<int64_t>(width) * height;
  std::string over;
  if (width > limits.max_dimension || height > limits.max_dimension) {
    over = absl::StrFormat("over this server's limit of %d pixels a side", limits.max_dimension);
  } else if (pixels > limits.max_pixels) {
    over = absl::StrCat("over ", PixelLimitText(limits));
  } else {
    return absl::OkStatus();
  }
  return WithDecodeErrorKind(
      absl::ResourceExhaustedError(absl::StrFormat("%s: %s %dx%d = %d pixels a picture, %s", name,
                                                   whose, width, height, pixels, over)),
      DecodeErrorKind::kOverLimits);
}

absl::Status VideoDecoder::CheckSize(const DecodeLimits& limits, int width, int height,
                                     absl::string_view whose) const {
  return CheckPictureSize(limits, name_, whose, width, height);
}

int VideoDecoder::GetPictureBuffer(AVCodecContext* codec, AVFrame* frame, int flags) {
  return static_cast<VideoDecoder*>(codec->opaque)->guard_.GetBuffer(codec, frame, flags);
}

void VideoDecoder::BoundMemory(const AVCodec& codec, int pictures_held_by_reader) {
  const AVCodecParameters* par = format_->streams[stream_index_]->codecpar;
  bound_width_ = std::max(par->width, codec_->width);
  bound_height_ = std::max(par->height, codec_->height);
  bound_format_ = codec_->pix_fmt != AV_PIX_FMT_NONE ? codec_->pix_fmt
                                                     : static_cast<AVPixelFormat>(par->format);
  memory_ = DecoderMemoryFor(codec, bound_format_, bound_width_, bound_height_,
                             pictures_held_by_reader);
  guard_.Limit(memory_);
}

DecoderMemory VideoDecoder::MemoryBoundWith(int pictures_held_by_reader) const {
  return DecoderMemoryFor(*decoder_, bound_format_, bound_width_, bound_height_,
                          pictures_held_by_reader);
}

void VideoDecoder::SetPicturesHeldByReader(int pictures) {
  memory_ = MemoryBoundWith(pictures);
  guard_.Limit(memory_);
}

absl::Status VideoDecoder::DecodeFailure(int code, absl::string_view what) const {
  if (!guard_.refusal().empty()) {
    return WithDecodeErrorKind(
        absl::ResourceExhaustedError(absl::StrFormat(
            "%s: %s: %s; the frames before it were read", name_, FrameName(), guard_.refusal())),
        DecodeErrorKind::kOverLimits);
  }
  return FrameError(DecodeErrorKind::kCorruptStream, what, code);
}

absl::Status VideoDecoder::OpenStream(const DecodeLimits& limits) {
  format_ = avformat_alloc_context();
  if (format_ == nullptr) return absl::ResourceExhaustedError("out of memory for a demuxer");
  format_->pb = input_->io;
  format_->flags |= AVFMT_FLAG_CUSTOM_IO;
  format_->io_open = &RefuseNestedOpen;
  // The name only helps the format probe (by extension); nothing is opened by it.
  int rc = avformat_open_input(&format_, name_.c_str(), nullptr, nullptr);
  if (rc < 0) {
    // avformat_open_input frees the context on failure.
    format_ = nullptr;
    return DecodeError(DecodeErrorKind::kNotMedia, absl::StrFormat(
        "%s: not a media file FFmpeg can read (%s)", name_, AvErrorText(rc)));
  }
  // What the container declares is checked before anything is decoded.
  for (unsigned i = 0; i < format_->nb_streams; ++i) {
    const AVStream& declared = *format_->streams[i];
    if (declared.codecpar->codec_type != AVMEDIA_TYPE_VIDEO ||
        (declared.disposition & AV_DISPOSITION_ATTACHED_PIC) != 0 ||
        declared.codecpar->width <= 0 || declared.codecpar->height <= 0) {
      continue;
    }
    if (absl::Status s = CheckSize(limits, declared.codecpar->width, declared.codecpar->height,
                                   "the container declares a video of");
        !s.ok()) {
      return s;
    }
  }
  ProbeOptions probe_options(format_->nb_streams, limits);
  rc = avformat_find_stream_info(format_, probe_options.get());
  if (rc < 0) {
    return DecodeError(DecodeErrorKind::kTruncated, absl::StrFormat(
        "%s: cannot read the container's streams (%s); is the file truncated?", name_,
        AvErrorText(rc)));
  }
  rc = av_find_best_stream(format_, AVMEDIA_TYPE_VIDEO, -1, -1, nullptr, 0);
  if (rc < 0) {
    return DecodeError(DecodeErrorKind::kNoVideoStream, absl::StrFormat(
        "%s: the file has no video stream (%d stream(s), none of them video)", name_,
        format_->nb_streams));
  }
  stream_index_ = rc;
  AVStream* stream = format_->streams[stream_index_];
  const AVCodecParameters* par = stream->codecpar;
  info_.container = format_->iformat->name;
  info_.codec = avcodec_get_name(par->codec_id);
  info_.duration_seconds = StatedDuration(*format_, *stream);
  const int64_t size = avio_size(format_->pb);
  if (size > 0) info_.size_bytes = static_cast<uint64_t>(size);
  const AVCodec* codec = avcodec_find_decoder(par->codec_id);
  if (codec == nullptr) {
    return DecodeError(DecodeErrorKind::kUnsupportedCodec, absl::StrFormat(
        "%s: the video codec %s is not supported by this server's FFmpeg", name_, info_.codec));
  }
  if (absl::Status s =
          CheckSize(limits, par->width, par->height, absl::StrCat("the ", info_.codec, " video is"));
      !s.ok()) {
    return s;
  }
  if (par->width <= 0 || par->height <= 0) {
    // Nothing to bound its memory by: a stream whose size the probe could not read, damaged or
    // with pictures the probe refused as over the limit.
    return DecodeError(DecodeErrorKind::kUnsupportedFormat, absl::StrFormat(
        "%s: the size of the %s video's pictures cannot be read (a damaged stream, or pictures "
        "over %s)",
        name_, info_.codec, PixelLimitText(limits)));
  }
  decoder_ = codec;
  codec_.reset(avcodec_alloc_context3(codec));
  if (codec_ == nullptr) return absl::ResourceExhaustedError("out of memory for a decoder");
  rc = avcodec_parameters_to_context(codec_.get(), par);
  if (rc < 0) {
    return DecodeError(DecodeErrorKind::kUnsupportedCodec, absl::StrFormat(
        "%s: bad %s stream parameters (%s)", name_, info_.codec, AvErrorText(rc)));
  }
  // The decoder refuses to allocate pictures over the limit, whatever the stream says later; one
  // that allocates through get_buffer2 is held to the stream's own size and format by the guard
  // (with a message saying so), one that allocates its own pictures (libdav1d) by max_pixels.
  codec_->opaque = this;
  if (PicturesGoThroughGetBuffer(*codec)) {
    codec_->max_pixels = DecoderPixelLimit(limits);
    codec_->get_buffer2 = &VideoDecoder::GetPictureBuffer;
  } else {
    codec_->max_pixels = std::min<int64_t>(
        {PaddedPixels(par->width, par->height), DecoderPixelLimit(limits)});
  }
  // Report bitstream errors instead of concealing them: a score over concealed pictures would be
  // a wrong score.
  codec_->err_recognition |= AV_EF_EXPLODE;
  // One thread per decoder: the server decodes several files at once, and the output does not
  // depend on threading.
  codec_->thread_count = 1;
  // Nor frame threads asked for, which libavcodec would run the allocation guard from.
  codec_->thread_type = FF_THREAD_SLICE;
  codec_->pkt_timebase = stream->time_base;
  if (hardware_ != nullptr) AttachHardware(*codec);
  rc = avcodec_open2(codec_.get(), codec, nullptr);
  if (rc < 0) {
    return DecodeError(DecodeErrorKind::kUnsupportedCodec, absl::StrFormat(
        "%s: cannot open the %s decoder (%s)", name_, info_.codec, AvErrorText(rc)));
  }
  // Opening may read a size of its own from the stream's headers (extradata), which the
  // container's check did not see.
  if (absl::Status s = CheckSize(limits, codec_->width, codec_->height,
                                 absl::StrCat("the ", info_.codec, " decoder opens pictures of"));
      !s.ok()) {
    return s;
  }
  info_.width = codec_->width;
  info_.height = codec_->height;
  info_.pixel_format = codec_->pix_fmt;
  BoundMemory(*codec, limits.pictures_held_by_reader);
  AVRational rate = stream->avg_frame_rate;
  if (rate.num <= 0 || rate.den <= 0) rate = stream->r_frame_rate;
  if (rate.num > 0 && rate.den > 0) {
    const int common = std::gcd(rate.num, rate.den);
    info_.frame_rate = FrameRate{rate.num / common, rate.den / common};
  }
  packet_.reset(av_packet_alloc());
  frame_.reset(av_frame_alloc());
  if (packet_ == nullptr || frame_ == nullptr) {
    return absl::ResourceExhaustedError("out of memory for decoding");
  }
  return absl::OkStatus();
}

void VideoDecoder::AttachHardware(const AVCodec& codec) {
  if (!hardware_->DecodesCodec(codec)) {
    fallback_ = DecodeFallback::kCodec;
    return;
  }
  session_ = hardware_->TryAcquire();
  if (session_ == nullptr) {
    fallback_ = DecodeFallback::kSessionsBusy;
    return;
  }
  codec_->hw_device_ctx = av_buffer_ref(hardware_->context());
  if (codec_->hw_device_ctx == nullptr) {
    session_.reset();
    fallback_ = DecodeFallback::kNoDevice;
    return;
  }
  codec_->opaque = this;
  codec_->get_format = &VideoDecoder::ChooseFormat;
}

AVPixelFormat VideoDecoder::ChooseFormat(AVCodecContext* codec, const AVPixelFormat* offered) {
  auto* self = static_cast<VideoDecoder*>(codec->opaque);
  const AVPixelFormat device = self->hardware_->device_format();
  // Asked again after the stream went to the CPU (its session already given back): stay there.
  const bool stays_on_cpu = self->session_ == nullptr;
  bool device_offered = false;
  AVPixelFormat software = AV_PIX_FMT_NONE;
  for (const AVPixelFormat* f = offered; *f != AV_PIX_FMT_NONE; ++f) {
    if (*f == device && !stays_on_cpu) device_offered = true;
    const AVPixFmtDescriptor* d = av_pix_fmt_desc_get(*f);
    if (software == AV_PIX_FMT_NONE && d != nullptr && (d->flags & AV_PIX_FMT_FLAG_HWACCEL) == 0) {
      software = *f;
    }
  }
  if (device_offered && HardwareOutputConvertible(codec->sw_pix_fmt)) {
    std::string refusal = EngineLimitsRefusal(
        self->hardware_->caps(), self->hardware_->backend_name(), ShapeOf(*codec));
    if (!refusal.empty()) {
      {
        absl::MutexLock lock(&self->detail_mutex_);
        self->fallback_detail_ = std::move(refusal);
      }
      self->fallback_ = DecodeFallback::kEngineLimits;
      self->engine_chosen_ = false;
      self->session_.reset();  // for another file at once
      return software;
    }
    self->engine_chosen_ = true;
    self->software_format_ = codec->sw_pix_fmt;
    return device;
  }
  // libavcodec asks again without the device's format when the engine refused the stream.
  if (self->engine_chosen_ && !device_offered) {
    self->fallback_ = DecodeFallback::kEngineRefused;
  } else if (device_offered) {
    self->fallback_ = DecodeFallback::kFormat;
  } else if (self->fallback_.load() == DecodeFallback::kNone) {
    self->fallback_ = DecodeFallback::kEngineRefused;
  }
  self->engine_chosen_ = false;
  return software;
}

std::string VideoDecoder::decode_fallback_detail() const {
  absl::MutexLock lock(&detail_mutex_);
  return fallback_detail_;
}

const std::string& VideoDecoder::decode_backend() const {
  static const std::string* const kCpu = new std::string("cpu");
  return engine_chosen_.load() && fallback_.load() == DecodeFallback::kNone
             ? hardware_->backend_name()
             : *kCpu;
}

absl::StatusOr<const AVFrame*> VideoDecoder::HostPicture() {
  if (hardware_ == nullptr || frame_->format != hardware_->device_format()) {
    if (frames_decoded_ == 0 && session_ != nullptr) {
      // The engine was offered but the stream decodes on the CPU: free the session for others.
      session_.reset();
      if (fallback_.load() == DecodeFallback::kNone) fallback_ = DecodeFallback::kEngineRefused;
      engine_chosen_ = false;
    }
    return frame_.get();
  }
  if (keep_on_device_.load(std::memory_order_relaxed)) {
    // Out of the engine's surface, which goes back to the decoder at once, and complete: its
    // readers may hold it for long and read it on other streams.
    if (kept_ == nullptr) kept_.reset(av_frame_alloc());
    if (kept_ == nullptr) return absl::ResourceExhaustedError("out of memory for a picture");
    if (absl::Status s = hardware_->CopyOut(*frame_, kept_.get()); !s.ok()) {
      return absl::Status(s.code(), absl::StrFormat("%s: %s: %s; the frames before it were read",
                                                    name_, FrameName(), s.message()));
    }
    av_frame_unref(frame_.get());
    hardware_->CountFrame();
    return kept_.get();
  }
  if (downloaded_ == nullptr) downloaded_.reset(av_frame_alloc());
  if (converted_ == nullptr) converted_.reset(av_frame_alloc());
  if (downloaded_ == nullptr || converted_ == nullptr) {
    return absl::ResourceExhaustedError("out of memory for a decoded picture");
  }
  if (absl::Status s = DownloadHardwarePicture(*frame_, software_format_, downloaded_.get(),
                                               converted_.get());
      !s.ok()) {
    return absl::Status(s.code(),
                        absl::StrFormat("%s: %s: %s (%s decoder); the frames before it were read",
                                        name_, FrameName(), s.message(),
                                        hardware_->backend_name()));
  }
  hardware_->CountFrame();
  return converted_.get();
}

void VideoDecoder::KeepPicturesOnDevice() {
  if (hardware_ != nullptr && hardware_->PictureDevice().ok()) keep_on_device_ = true;
}

AVPixelFormat VideoDecoder::PictureFormat(const AVFrame& picture) const {
  return picture.hw_frames_ctx != nullptr ? software_format_
                                          : static_cast<AVPixelFormat>(picture.format);
}

std::string VideoDecoder::FrameName() const {
  if (share_.workers <= 1) return absl::StrFormat("frame %d", frames_decoded_);
  // The count is of the decoded segment's pictures, none yet if the last one out was of an
  // earlier segment of this share.
  const uint64_t decoded_in_segment =
      frames_decoded_ > 0 && frame_segment_ == decoding_segment_ ? frames_in_segment_ : 0;
  return absl::StrFormat("frame %d of segment %d (the segment decoded on its own from its split "
                         "point)", decoded_in_segment, decoding_segment_);
}

absl::Status VideoDecoder::FrameError(DecodeErrorKind kind, absl::string_view what,
                                      int code) const {
  return DecodeError(kind, absl::StrFormat(
      "%s: %s: %s (%s); the frames before it were read", name_, FrameName(), what,
      AvErrorText(code)));
}

absl::Status VideoDecoder::CheckFrame(const AVFrame& frame) const {
  if (frame.width <= 0 || frame.height <= 0) {
    return DecodeError(
        DecodeErrorKind::kCorruptStream,
        absl::StrFormat("%s: %s: the decoder returned an empty picture", name_,
                        FrameName()));
  }
  if ((frame.flags & AV_FRAME_FLAG_CORRUPT) != 0 || frame.decode_error_flags != 0) {
    return DecodeError(DecodeErrorKind::kCorruptStream, absl::StrFormat(
        "%s: %s: the video stream is corrupt (the decoder marked the picture damaged); "
        "the frames before it were read",
        name_, FrameName()));
  }
  // The size and format of the first frame hold for the whole file: a ladder rendition that
  // changes resolution midway has no single upscale to the source.
  if (info_.width != 0 && (frame.width != info_.width || frame.height != info_.height)) {
    return DecodeError(DecodeErrorKind::kStreamChange, absl::StrFormat(
        "%s: %s is %dx%d but the stream started at %dx%d; files that change size are not "
        "supported",
        name_, FrameName(), frame.width, frame.height, info_.width, info_.height));
  }
  if (PictureFormat(frame) != info_.pixel_format) {
    return DecodeError(DecodeErrorKind::kStreamChange, absl::StrFormat(
        "%s: %s is %s but the stream started as %s; files that change pixel format are "
        "not supported",
        name_, FrameName(), PixelFormatName(PictureFormat(frame)),
        PixelFormatName(info_.pixel_format)));
  }
  return absl::OkStatus();
}

void VideoDecoder::DecodeSegmentShare(const SegmentShare& share) {
  share_ = share;
  share_.workers = std::max(1, share.workers);
  share_.min_packets = std::max(1, share.min_packets);
  const AVCodecParameters* par = format_->streams[stream_index_]->codecpar;
  nal_length_size_ = NalLengthSize(par->codec_id, par->extradata,
                                   par->extradata_size > 0 ? par->extradata_size : 0);
}

bool VideoDecoder::TakeSegmentPacket() {
  const AVCodecID codec = format_->streams[stream_index_]->codecpar->codec_id;
  if (packets_in_segment_ >= static_cast<uint64_t>(share_.min_packets) &&
      IsSplitPoint(codec, packet_->data, static_cast<size_t>(packet_->size), nal_length_size_)) {
    ++packet_segment_;
    packets_in_segment_ = 0;
  }
  ++packets_in_segment_;
  if (!claimed_segment_.has_value() || packet_segment_ > *claimed_segment_) {
    claimed_segment_ = ClaimSegment(packet_segment_);
  }
  if (packet_segment_ != *claimed_segment_) return false;
  decoding_segment_ = packet_segment_;
  segment_open_ = true;
  return true;
}

uint64_t VideoDecoder::ClaimSegment(uint64_t reached) {
  if (share_.claims != nullptr) return share_.claims->ClaimNext(share_.worker, reached);
  const uint64_t workers = static_cast<uint64_t>(share_.workers);
  const uint64_t worker = static_cast<uint64_t>(share_.worker) % workers;
  return reached + (worker + workers - reached % workers) % workers;
}

void VideoDecoder::TagSegmentPacket() {
  if (segment_first_packets_.empty() || segment_first_packets_.back().segment != decoding_segment_) {
    segment_first_packets_.push_back({packets_sent_, decoding_segment_});
  }
  packet_->pts = static_cast<int64_t>(packets_sent_++);
}

uint64_t VideoDecoder::PacketsInSegment(uint64_t segment) const {
  for (size_t i = 0; i < segment_first_packets_.size(); ++i) {
    if (segment_first_packets_[i].segment != segment) continue;
    const uint64_t end = i + 1 < segment_first_packets_.size()
                             ? segment_first_packets_[i + 1].first_packet
                             : packets_sent_;
    return end - segment_first_packets_[i].first_packet;
  }
  return 0;
}

bool VideoDecoder::IsSentPacket(int64_t tag) const {
  // Every packet sent was noted in segment_first_packets_ first.
  return tag != AV_NOPTS_VALUE && tag >= 0 && static_cast<uint64_t>(tag) < packets_sent_;
}

uint64_t VideoDecoder::SegmentOfPacket(uint64_t tag) const {
  // The last segment whose first packet is at or before this one.
  auto after = std::upper_bound(
      segment_first_packets_.begin(), segment_first_packets_.end(), tag,
      [](uint64_t t, const SegmentStart& start) { return t < start.first_packet; });
  return std::prev(after)->segment;
}

absl::Status VideoDecoder::PlaceInSegment(const AVFrame& picture) {
  if (!IsSentPacket(picture.pts)) {
    // Codecs carry each packet's timestamp to the picture it starts; a picture without one of
    // ours cannot be put in order with the other decoders' pictures.
    return DecodeError(DecodeErrorKind::kCorruptStream, absl::StrFormat(
        "%s: %s: the decoder returned a picture that no packet of this decoder started, so it "
        "cannot be put in order when the file is decoded in segments (decode it with one "
        "decoder per file); the frames before it were read",
        name_, FrameName()));
  }
  const uint64_t segment = SegmentOfPacket(static_cast<uint64_t>(picture.pts));
  if (frames_decoded_ == 0 || segment != frame_segment_) frames_in_segment_ = 0;
  frame_segment_ = segment;
  return absl::OkStatus();
}

absl::Status VideoDecoder::FailAfterEarlierSegments(absl::Status error, bool in_container) {
  if (share_.workers <= 1 || failed_segment_.has_value()) return error;
  failure_ = std::move(error);
  // A codec error stands in the last segment sent to the codec. A container that cannot be
  // read stops every share where the reading is: in this share's open segment, or past its last
  // one, whose packets have then all been sent and none of whose pictures is lost to it.
  failed_segment_ = in_container ? segment_in_progress() : decoding_segment_;
  // Pictures of this share's earlier segments may still be in the codec, held for reordering
  // when the next segment followed without a drain: the codec gives up what it holds, and the
  // pictures of earlier segments are handed out before the error. A damaged start of the failed
  // segment can have cost the segment before it its last pictures (a garbled "no output of
  // prior pictures") and let later ones out of order: the error then stands at the first
  // segment that is missing pictures, and its drained pictures are dropped, so that what is
  // handed out stays the file's own pictures, in order.
  avcodec_send_packet(codec_.get(), nullptr);
  std::vector<std::pair<uint64_t, AvFramePtr>> drained;
  for (AvFramePtr picture(av_frame_alloc());
       picture != nullptr && avcodec_receive_frame(codec_.get(), picture.get()) == 0;
       picture.reset(av_frame_alloc())) {
    if (!IsSentPacket(picture->pts)) break;
    const uint64_t segment = SegmentOfPacket(static_cast<uint64_t>(picture->pts));
    if (segment < *failed_segment_) drained.emplace_back(segment, std::move(picture));
  }
  uint64_t segment = frames_decoded_ > 0 ? frame_segment_
                                         : (drained.empty() ? *failed_segment_ : drained[0].first);
  uint64_t handed_out = frames_decoded_ > 0 ? frames_in_segment_ : 0;
  size_t kept = 0;
  while (segment < *failed_segment_) {
    size_t end = kept;
    while (end < drained.size() && drained[end].first == segment) ++end;
    if (handed_out + (end - kept) < PacketsInSegment(segment)) {
      failed_segment_ = segment;
      break;
    }
    kept = end;
    if (kept == drained.size()) break;
    segment = drained[kept].first;
    handed_out = 0;
  }
  for (size_t k = 0; k < kept; ++k) salvaged_.push_back(std::move(drained[k].second));
  return absl::OkStatus();
}

absl::StatusOr<const AVFrame*> VideoDecoder::Next() {
  if (ended_) return nullptr;
  auto Corrupt = [this](int rc) {
    return FailAfterEarlierSegments(DecodeFailure(rc, "the video stream is corrupt"),
                                    /*in_container=*/false);
  };
  av_frame_unref(frame_.get());
  while (true) {
    int rc = 0;
    if (failed_segment_.has_value()) {
      // After an error: the pictures of earlier segments set aside, then the error.
      if (salvaged_.empty()) return failure_;
      av_frame_move_ref(frame_.get(), salvaged_.front().get());
      salvaged_.pop_front();
    } else {
      rc = avcodec_receive_frame(codec_.get(), frame_.get());
    }
    if (rc == 0 && share_.workers > 1) {
      if (absl::Status placed = PlaceInSegment(*frame_); !placed.ok()) return placed;
    }
    if (rc == 0) {
      absl::StatusOr<const AVFrame*> picture = HostPicture();
      if (!picture.ok()) return picture.status();
      if (frames_decoded_ == 0 && info_.pixel_format != PictureFormat(**picture)) {
        // Some decoders settle the format only with the first picture.
        info_.pixel_format = PictureFormat(**picture);
      }
      absl::Status checked = CheckFrame(**picture);
      if (!checked.ok()) return checked;
      ++frames_decoded_;
      ++frames_in_segment_;
      return *picture;
    }
    if (rc == AVERROR_EOF) {
      ended_ = true;
      return nullptr;
    }
    if (rc != AVERROR(EAGAIN)) {
      if (absl::Status failed = Corrupt(rc); !failed.ok()) return failed;
      continue;
    }
    if (draining_) {
      return FrameError(DecodeErrorKind::kCorruptStream, "the decoder stopped early", rc);
    }
    rc = av_read_frame(format_, packet_.get());
    if (rc == AVERROR_EOF) {
      draining_ = true;
      rc = avcodec_send_packet(codec_.get(), nullptr);
      if (rc < 0 && rc != AVERROR_EOF) return DecodeFailure(rc, "the video stream is corrupt");
      continue;
    }
    if (rc < 0) {
      if (absl::Status failed = FailAfterEarlierSegments(FrameError(
              DecodeErrorKind::kTruncated, "the container is corrupt or truncated", rc),
              /*in_container=*/true);
          !failed.ok()) {
        return failed;
      }
      continue;
    }
    if (packet_->stream_index != stream_index_) {
      av_packet_unref(packet_.get());
      continue;
    }
    if (share_.workers > 1) {
      if (!TakeSegmentPacket()) {
        // Another share's packet. This share's next segment follows without a drain or reset:
        // it starts at a split point, so nothing in it refers to what came before, and the
        // codec outputs every earlier picture before the split point's own.
        av_packet_unref(packet_.get());
        segment_open_ = false;
        continue;
      }
      TagSegmentPacket();
    }
    rc = avcodec_send_packet(codec_.get(), packet_.get());
    av_packet_unref(packet_.get());
    if (rc < 0 && rc != AVERROR(EAGAIN)) {
      if (absl::Status failed = Corrupt(rc); !failed.ok()) return failed;
    }
  }
}

}  // namespace ssimd
