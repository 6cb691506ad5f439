#include "engine/media/decoder_memory.h"

#include <algorithm>

#include "absl/strings/str_format.h"
#include "engine/media/picture_memory_budget.h"

extern "C" {
#include <libavutil/buffer.h>
#include <libavutil/imgutils.h>
#include <libavutil/pixdesc.h>
}

namespace ssimd {
namespace {

// The widest picture a decoder outputs: three 16-bit planes of full size.
constexpr AVPixelFormat kWidestFormat = AV_PIX_FMT_YUV444P16LE;
// Per-picture side data of codecs that predict between pictures (motion vectors, reference
// indices, block types: about half a byte a pixel in H.264, three quarters in HEVC), per pixel.
constexpr int64_t kSideBytesPerPixel = 1;
// What a decoder keeps besides its pictures: one picture's worth of tables (deblocking, SAO,
// entropy contexts, slice state) at two bytes a pixel, and a fixed part for the context itself.
constexpr int64_t kWorkingBytesPerPixel = 2;
constexpr int64_t kWorkingBytes = int64_t{16} << 20;

int PaddedSide(int side) { return FFALIGN(std::max(side, 1), 64) + 64; }

// Pictures that stand alone, decoded without reference pictures or motion data. FFV1 is not
// marked intra-only (its range coder may carry its contexts from one picture to the next), but
// it never predicts from another picture.
bool IntraOnly(AVCodecID codec) {
  if (codec == AV_CODEC_ID_FFV1) return true;
  const AVCodecDescriptor* descriptor = avcodec_descriptor_get(codec);
  return descriptor != nullptr && (descriptor->props & AV_CODEC_PROP_INTRA_ONLY) != 0;
}

const char* FormatName(int format) {
  const char* name = av_get_pix_fmt_name(static_cast<AVPixelFormat>(format));
  return name != nullptr ? name : "unknown";
}

// Counts one picture alive until the last reference to its buffer goes.
struct CountedPicture {
  std::shared_ptr<std::atomic<int>> alive;
  AVBufferRef* buffer;  // FFmpeg's own, released with the last reference to ours

  static void Release(void* opaque, uint8_t* /*data*/) {
    auto* picture = static_cast<CountedPicture*>(opaque);
    picture->alive->fetch_sub(1);
    av_buffer_unref(&picture->buffer);
    delete picture;
  }
};

}  // namespace

int64_t PaddedPixels(int width, int height) {
  return static_cast<int64_t>(PaddedSide(width)) * PaddedSide(height);
}

int64_t PaddedPictureBytes(AVPixelFormat format, int width, int height) {
  const AVPixFmtDescriptor* descriptor = av_pix_fmt_desc_get(format);
  if (descriptor == nullptr || (descriptor->flags & AV_PIX_FMT_FLAG_HWACCEL) != 0) {
    format = kWidestFormat;
  }
  const int bytes = av_image_get_buffer_size(format, PaddedSide(width), PaddedSide(height), 64);
  if (bytes < 0) {
    // Over what one buffer can hold: count it as the widest picture, which never fails here
    // for sizes within the engine's limits.
    return PaddedPixels(width, height) * 6;
  }
  return bytes;
}

int PicturesKeptByDecoder(AVCodecID codec) {
  switch (codec) {
    case AV_CODEC_ID_H264:
    case AV_CODEC_ID_HEVC:
      // A decoded picture buffer of at most 16 (references and pictures waiting for output),
      // the picture being decoded, and room for those libavcodec holds while bumping.
      return 20;
    case AV_CODEC_ID_VP9:
      // Eight reference slots, the picture being decoded, and the previous pictures kept for
      // their motion vectors and segmentation map.
      return 12;
    case AV_CODEC_ID_AV1:
      // Eight reference slots, the picture being decoded, one in flight in dav1d's frame
      // delay, and a copy with film grain applied.
      return 12;
    default:
      // Pictures that stand alone (FFV1, ProRes, ...) keep the current and the last one; any
      // other codec is counted like H.264.
      return IntraOnly(codec) ? 3 : 20;
  }
}

bool PicturesGoThroughGetBuffer(const AVCodec& codec) {
  return (codec.capabilities & AV_CODEC_CAP_DR1) != 0;
}

DecoderMemory DecoderMemoryFor(const AVCodec& codec, AVPixelFormat format, int width, int height,
                               int pictures_held_by_reader) {
  DecoderMemory memory;
  const AVPixelFormat counted = PicturesGoThroughGetBuffer(codec) ? format : kWidestFormat;
  const int64_t pixels = PaddedPixels(width, height);
  memory.picture_pixels = pixels;
  memory.picture_bytes = PaddedPictureBytes(counted, width, height);
  memory.pictures = PicturesKeptByDecoder(codec.id) + std::max(0, pictures_held_by_reader);
  const int64_t side = IntraOnly(codec.id) ? 0 : kSideBytesPerPixel * pixels;
  memory.bytes = memory.pictures * (memory.picture_bytes + side) +
                 kWorkingBytesPerPixel * pixels + kWorkingBytes;
  return memory;
}

PictureAllocationGuard::PictureAllocationGuard()
    : alive_(std::make_shared<std::atomic<int>>(0)) {}

void PictureAllocationGuard::Limit(const DecoderMemory& bound) {
  picture_pixels_ = bound.picture_pixels;
  picture_bytes_ = bound.picture_bytes;
  pictures_ = bound.pictures;
}

int PictureAllocationGuard::GetBuffer(AVCodecContext* codec, AVFrame* frame, int flags) {
  const AVPixFmtDescriptor* descriptor =
      av_pix_fmt_desc_get(static_cast<AVPixelFormat>(frame->format));
  if (descriptor == nullptr || (descriptor->flags & AV_PIX_FMT_FLAG_HWACCEL) != 0) {
    // A surface of a device's engine: device memory, bounded by the engine's own pool.
    return avcodec_default_get_buffer2(codec, frame, flags);
  }
  const int bytes = av_image_get_buffer_size(static_cast<AVPixelFormat>(frame->format),
                                             frame->width, frame->height, 1);
  const int64_t pixels = static_cast<int64_t>(frame->width) * frame->height;
  if (bytes < 0 || bytes > picture_bytes_ || pixels > picture_pixels_) {
    refusal_ = absl::StrFormat(
        "the stream grows midway to %dx%d %s pictures of %s each, past the %s a picture "
        "reserved for it when it was opened",
        frame->width, frame->height, FormatName(frame->format), BytesText(std::max(bytes, 0)),
        BytesText(picture_bytes_));
    return AVERROR(ENOMEM);
  }
  if (alive_->load() >= pictures_) {
    refusal_ = absl::StrFormat(
        "the stream needs more than %d pictures of %s at once, the most reserved for its "
        "decoder",
        pictures_, BytesText(bytes));
    return AVERROR(ENOMEM);
  }
  const int rc = avcodec_default_get_buffer2(codec, frame, flags);
  if (rc < 0) return rc;
  // A picture's planes are referenced and released together, so counting the first plane's
  // buffer counts the picture. The decoder and its readers reference the wrapper; the last
  // reference gives FFmpeg's buffer back to its pool.
  auto* counted = new CountedPicture{alive_, frame->buf[0]};
  AVBufferRef* wrapper = av_buffer_create(frame->buf[0]->data, frame->buf[0]->size,
                                          &CountedPicture::Release, counted, 0);
  if (wrapper == nullptr) {
    delete counted;
    av_frame_unref(frame);
    return AVERROR(ENOMEM);
  }
  alive_->fetch_add(1);
  frame->buf[0] = wrapper;
  return 0;
}

}  // namespace ssimd
