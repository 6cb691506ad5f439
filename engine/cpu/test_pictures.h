// Synthetic luma planes for the CPU engine's tests.
#ifndef SSIMD_ENGINE_CPU_TEST_PICTURES_H_
#define SSIMD_ENGINE_CPU_TEST_PICTURES_H_

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "engine/picture.h"

namespace ssimd::testing {

// A tightly packed plane that owns its bytes (little-endian words above 8 bit).
struct TestPlane {
  int width = 0;
  int height = 0;
  int bit_depth = 8;
  std::vector<uint8_t> bytes;

  TestPlane(int w, int h, int bd) : width(w), height(h), bit_depth(bd) {
    bytes.resize(static_cast<size_t>(w) * h * (bd > 8 ? 2 : 1));
  }
  void Set(int x, int y, uint32_t v) {
    const size_t i = static_cast<size_t>(y) * width + x;
    if (bit_depth == 8) {
      bytes[i] = static_cast<uint8_t>(v);
    } else {
      bytes[2 * i] = static_cast<uint8_t>(v & 0xff);
      bytes[2 * i + 1] = static_cast<uint8_t>(v >> 8);
    }
  }
  LumaView view() const {
    LumaView v;
    v.data = bytes.data();
    v.stride_bytes = static_cast<size_t>(width) * (bit_depth > 8 ? 2 : 1);
    v.width = width;
    v.height = height;
    v.bit_depth = bit_depth;
    return v;
  }
  Geometry geometry() const {
    Geometry g;
    g.width = width;
    g.height = height;
    g.bit_depth = bit_depth;
    return g;
  }
};

inline TestPlane FlatPlane(int w, int h, int bd, uint32_t value) {
  TestPlane p(w, h, bd);
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) p.Set(x, y, value);
  }
  return p;
}

// A smooth gradient plus uniform noise in [lo, hi], clamped to the bit depth.
inline TestPlane NoisyPlane(int w, int h, int bd, uint32_t seed, uint32_t lo = 0,
                            uint32_t hi = 0) {
  const uint32_t peak = (1u << bd) - 1u;
  if (hi == 0) hi = peak;
  std::mt19937 rng(seed);
  std::uniform_int_distribution<uint32_t> noise(lo, hi);
  TestPlane p(w, h, bd);
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) p.Set(x, y, noise(rng));
  }
  return p;
}

// `base` with each sample moved by up to +-amplitude (a mild distortion), clamped.
inline TestPlane Distort(const TestPlane& base, uint32_t seed, int amplitude) {
  const int peak = (1 << base.bit_depth) - 1;
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> delta(-amplitude, amplitude);
  TestPlane p = base;
  const LumaView v = base.view();
  for (int y = 0; y < base.height; ++y) {
    for (int x = 0; x < base.width; ++x) {
      int s = static_cast<int>(v.Sample(x, y)) + delta(rng);
      s = s < 0 ? 0 : (s > peak ? peak : s);
      p.Set(x, y, static_cast<uint32_t>(s));
    }
  }
  return p;
}

// Smooth content (so SSIM sits near real-video values) with a little noise.
inline TestPlane SmoothPlane(int w, int h, int bd, uint32_t seed) {
  const uint32_t peak = (1u << bd) - 1u;
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> noise(-3, 3);
  TestPlane p(w, h, bd);
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      const double t = 0.5 + 0.25 * std::sin(x * 0.05) + 0.2 * std::cos(y * 0.07 + x * 0.01);
      int v = static_cast<int>(t * peak) + noise(rng) * static_cast<int>(peak / 255);
      v = v < 0 ? 0 : (v > static_cast<int>(peak) ? static_cast<int>(peak) : v);
      p.Set(x, y, static_cast<uint32_t>(v));
    }
  }
  return p;
}

}  // namespace ssimd::testing

#endif  // SSIMD_ENGINE_CPU_TEST_PICTURES_H_
