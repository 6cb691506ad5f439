// Synthetic benchmark pictures: a textured reference luma plane and a distorted copy of it, several
// distinct pairs per geometry so that repeated scoring does not read one cached buffer.
#ifndef SSIMD_BENCH_SYNTHETIC_FRAMES_H_
#define SSIMD_BENCH_SYNTHETIC_FRAMES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "engine/picture.h"
#include "engine/scorer.h"

namespace ssimd::bench {

// Frame pairs of one geometry, tightly packed (little-endian above 8 bits), ready both for the
// engine (as views) and for gRPC requests (as bytes fields).
struct FrameSet {
  Geometry geometry;
  std::vector<std::string> reference;
  std::vector<std::string> distorted;

  int size() const { return static_cast<int>(reference.size()); }
  // Bytes of the two luma planes of one pair: what one scored pair ingests.
  size_t PairBytes() const { return 2 * LumaBytes(geometry); }
  FramePair Pair(int index) const;
};

// `count` pairs whose content moves from frame to frame (engine/synthetic_picture.h's textured
// planes, frame by frame); the distorted plane is the reference coarsely quantised plus noise, as a
// lossy encoder leaves it. Deterministic for a given geometry, count and seed; generated on
// `threads` threads.
FrameSet MakeFrameSet(const Geometry& geometry, int count, uint32_t seed, int threads);

}  // namespace ssimd::bench

#endif  // SSIMD_BENCH_SYNTHETIC_FRAMES_H_
