// Synthetic luma planes: the one generator behind the engine's tests, the GPU and service
// benchmarks, the fault-and-load tool and the service tests, so that "realistic content" and "a
// mild distortion" mean the same thing everywhere. Every function is deterministic for its inputs.
#ifndef SSIMD_ENGINE_SYNTHETIC_PICTURE_H_
#define SSIMD_ENGINE_SYNTHETIC_PICTURE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "engine/picture.h"

namespace ssimd {

// A tightly packed luma plane that owns its bytes (little-endian words above 8 bits), as the
// engine reads it from a view and the API carries it in a bytes field.
struct SyntheticPlane {
  int width = 0;
  int height = 0;
  int bit_depth = 8;
  std::vector<uint8_t> bytes;

  SyntheticPlane() = default;
  SyntheticPlane(int w, int h, int bd);

  void Set(int x, int y, uint32_t value);
  uint32_t Get(int x, int y) const;
  LumaView view() const;
  // Its width, height and bit depth (4:2:0, the geometry's default).
  Geometry geometry() const;
  // The bytes as a string, for the API's bytes fields.
  std::string ToString() const;
};

// Every sample `value`.
SyntheticPlane FlatPlane(int width, int height, int bit_depth, uint32_t value);

// Independent uniform samples in [lo, hi] (hi = 0: the bit depth's peak). No structure at all:
// for edge cases of the arithmetic, not for realistic scores.
SyntheticPlane NoisyPlane(int width, int height, int bit_depth, uint32_t seed, uint32_t lo = 0,
                          uint32_t hi = 0);

// Content shaped like video, so that every filter stage sees realistic data and SSIM lands where
// real clips do: smooth waves, hard edges from a checkerboard of 64-pixel tiles, and fine grain of
// about 1/64 of the range. `frame` moves the waves and tiles, as motion does. A sample depends
// only on (x, y, seed, frame), so planes can be made on any thread in any order.
SyntheticPlane TexturedPlane(int width, int height, int bit_depth, uint32_t seed, int frame = 0);
SyntheticPlane TexturedPlane(const Geometry& geometry, uint32_t seed, int frame = 0);

// `reference` as a lossy encoder might leave it: the lowest `quantised_bits` bits dropped, then
// each sample moved by up to +-`amplitude`, clamped to the bit depth.
SyntheticPlane Distort(const SyntheticPlane& reference, uint32_t seed, int amplitude,
                       int quantised_bits = 0);

// One whole planar frame as a raw .yuv file stores it (FrameBytes: luma, then Cb and Cr), whose
// luma, Cb and Cr each hold their own run of bytes, starting apart and shifted by `frame`: a
// reader that drops, reorders or misplaces a plane or a frame reads other bytes. Not picture-like
// content; samples above 8 bits may exceed the depth's peak.
std::string MarkedFrame(const Geometry& geometry, int frame);

}  // namespace ssimd

#endif  // SSIMD_ENGINE_SYNTHETIC_PICTURE_H_
