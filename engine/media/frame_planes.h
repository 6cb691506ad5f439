// Copies a decoded picture's planes out of FFmpeg's padded buffers, tightly packed.
#ifndef SSIMD_ENGINE_MEDIA_FRAME_PLANES_H_
#define SSIMD_ENGINE_MEDIA_FRAME_PLANES_H_

#include <cstdint>
#include <string>

#include "engine/media/av_handles.h"

namespace ssimd {

// The luma plane, row after row without padding (what the scorers take), into *luma.
void CopyLuma(const AVFrame& frame, std::string* luma);

// Every plane, each tightly packed, in plane order: the bytes of `-f rawvideo` output.
std::string PackedPicture(const AVFrame& frame);

// Sample `x` of a row of a planar picture: one byte at 8 bits, little-endian 16 bits above.
inline void PutSample(uint8_t* row, int x, int bit_depth, uint32_t value) {
  if (bit_depth <= 8) {
    row[x] = static_cast<uint8_t>(value);
  } else {
    row[2 * x] = static_cast<uint8_t>(value & 0xff);
    row[2 * x + 1] = static_cast<uint8_t>(value >> 8);
  }
}
inline uint32_t GetSample(const uint8_t* row, int x, int bit_depth) {
  return bit_depth <= 8 ? row[x] : static_cast<uint32_t>(row[2 * x] | (row[2 * x + 1] << 8));
}

}  // namespace ssimd

#endif  // SSIMD_ENGINE_MEDIA_FRAME_PLANES_H_
