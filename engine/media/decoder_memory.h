// What one decoder's pictures may take in memory, and the allocation guard that holds libavcodec's
// decoder to it whatever the bitstream says after the stream was opened. The bound is what the
// server reserves of its decoded-picture budget for the decoder (docs/adr/0084).
#ifndef SSIMD_ENGINE_MEDIA_DECODER_MEMORY_H_
#define SSIMD_ENGINE_MEDIA_DECODER_MEMORY_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavutil/pixfmt.h>
}

namespace ssimd {

// Pixels of a `width` x `height` picture with its sides padded as decoders pad them (coded sizes
// are multiples of 8 to 64 samples, and buffer pools align lines to 64): what a stream's pictures
// may take at most, in pixels, before the decoder refuses one.
int64_t PaddedPixels(int width, int height);
// Bytes of every plane of one such padded picture of `format`; for an unknown format, the widest
// one any decoder outputs (16-bit 4:4:4).
int64_t PaddedPictureBytes(AVPixelFormat format, int width, int height);

// Pictures a decoder of `codec` keeps at once: its reference pictures, those waiting to be output
// in order, and the one being decoded. The counts are the most the codecs' standards allow plus
// what libavcodec holds beside them; a stream that needs more is refused (PictureAllocationGuard).
int PicturesKeptByDecoder(AVCodecID codec);

// Whether libavcodec's `codec` allocates its pictures through get_buffer2, where the guard sees
// them (libdav1d, for one, allocates its own).
bool PicturesGoThroughGetBuffer(const AVCodec& codec);

// An upper bound of what one decoder of a stream takes in pictures at once.
struct DecoderMemory {
  int64_t picture_pixels = 0;  // one picture's pixels (PaddedPixels of the stream)
  int64_t picture_bytes = 0;   // one picture (PaddedPictureBytes of the stream)
  int pictures = 0;           // pictures at once: the decoder's own and those its reader holds
  int64_t bytes = 0;          // all of it, with per-picture side data and working state
};
// For a stream of `codec` with pictures of `format` (AV_PIX_FMT_NONE: not known yet) at
// `width` x `height`, whose reader holds up to `pictures_held_by_reader` of its pictures besides
// those the decoder keeps. A codec that allocates outside the guard is counted at the widest
// format, since nothing stops its pictures from widening.
DecoderMemory DecoderMemoryFor(const AVCodec& codec, AVPixelFormat format, int width, int height,
                               int pictures_held_by_reader);

// Installed as a decoder's get_buffer2 (through its owner's callback): hands out FFmpeg's default
// buffers while a picture has at most the bound's pixels and bytes and fewer than its pictures
// are alive, and refuses (AVERROR(ENOMEM)) otherwise, so that the decoder fails instead of growing
// past the memory reserved for it. Pictures in device memory (hardware frames) are not counted.
class PictureAllocationGuard {
 public:
  PictureAllocationGuard();
  void Limit(const DecoderMemory& bound);
  int GetBuffer(AVCodecContext* codec, AVFrame* frame, int flags);
  // Why the last allocation was refused ("a 1024x1024 yuv444p16le picture takes 6.0 MiB, ...");
  // empty while none was.
  const std::string& refusal() const { return refusal_; }
  // Pictures alive now (also those handed out and not yet released).
  int alive() const { return alive_->load(); }

 private:
  int64_t picture_pixels_ = INT64_MAX;
  int64_t picture_bytes_ = INT64_MAX;
  int pictures_ = INT32_MAX;
  // Shared with every counted picture, which may outlive the guard's decoder.
  std::shared_ptr<std::atomic<int>> alive_;
  std::string refusal_;
};

}  // namespace ssimd

#endif  // SSIMD_ENGINE_MEDIA_DECODER_MEMORY_H_
