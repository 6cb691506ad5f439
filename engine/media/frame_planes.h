// Copies a decoded picture's planes out of FFmpeg's padded buffers, tightly packed.
#ifndef SSIMD_ENGINE_MEDIA_FRAME_PLANES_H_
#define SSIMD_ENGINE_MEDIA_FRAME_PLANES_H_

#include <string>

#include "engine/media/av_handles.h"

namespace ssimd {

// The luma plane, row after row without padding (what the scorers take), into *luma.
void CopyLuma(const AVFrame& frame, std::string* luma);

// The Cb then the Cr plane, each tightly packed at its stored size (sides rounded up where
// subsampled, as a raw .yuv file holds them), into *chroma; empty for a picture without chroma.
void CopyChroma(const AVFrame& frame, std::string* chroma);

// The luma followed by the two chroma planes (the bytes of one `-f rawvideo` frame of a YUV
// format), into *planes.
void CopyLumaAndChroma(const AVFrame& frame, std::string* planes);

// Every plane, each tightly packed, in plane order: the bytes of `-f rawvideo` output.
std::string PackedPicture(const AVFrame& frame);

}  // namespace ssimd

#endif  // SSIMD_ENGINE_MEDIA_FRAME_PLANES_H_
