#include "engine/synthetic_picture.h"

#include <algorithm>
#include <cmath>
#include <random>

namespace ssimd {
namespace {

// A small stateless hash: the same (x, y, z) gives the same grain on any thread.
uint32_t Hash(uint32_t x, uint32_t y, uint32_t z) {
  uint32_t h = x * 0x8da6b343u ^ y * 0xd8163841u ^ z * 0xcb1ab31fu;
  h ^= h >> 15;
  h *= 0x2c1b3c6du;
  h ^= h >> 12;
  h *= 0x297a2d39u;
  h ^= h >> 15;
  return h;
}

}  // namespace

SyntheticPlane::SyntheticPlane(int w, int h, int bd) : width(w), height(h), bit_depth(bd) {
  bytes.resize(static_cast<size_t>(w) * h * BytesPerSample(bd));
}

void SyntheticPlane::Set(int x, int y, uint32_t value) {
  StoreSample(bytes.data() + static_cast<size_t>(y) * width * BytesPerSample(bit_depth), x,
              bit_depth, value);
}

uint32_t SyntheticPlane::Get(int x, int y) const {
  return LoadSample(bytes.data() + static_cast<size_t>(y) * width * BytesPerSample(bit_depth), x,
                    bit_depth);
}

LumaView SyntheticPlane::view() const {
  LumaView v;
  v.data = bytes.data();
  v.stride_bytes = static_cast<size_t>(width) * BytesPerSample(bit_depth);
  v.width = width;
  v.height = height;
  v.bit_depth = bit_depth;
  return v;
}

Geometry SyntheticPlane::geometry() const {
  Geometry g;
  g.width = width;
  g.height = height;
  g.bit_depth = bit_depth;
  return g;
}

std::string SyntheticPlane::ToString() const {
  return std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

SyntheticPlane FlatPlane(int width, int height, int bit_depth, uint32_t value) {
  SyntheticPlane p(width, height, bit_depth);
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) p.Set(x, y, value);
  }
  return p;
}

SyntheticPlane NoisyPlane(int width, int height, int bit_depth, uint32_t seed, uint32_t lo,
                          uint32_t hi) {
  if (hi == 0) hi = PeakValue(bit_depth);
  std::mt19937 rng(seed);
  std::uniform_int_distribution<uint32_t> noise(lo, hi);
  SyntheticPlane p(width, height, bit_depth);
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) p.Set(x, y, noise(rng));
  }
  return p;
}

SyntheticPlane TexturedPlane(int width, int height, int bit_depth, uint32_t seed, int frame) {
  const int peak = static_cast<int>(PeakValue(bit_depth));
  // Separable waves: two sine tables keep the per-pixel work to a few additions, so that a 4K
  // plane takes milliseconds, not seconds. The seed picks the phase, so seeds differ everywhere.
  const double shift = 0.07 * frame + 0.37 * (seed % 97);
  std::vector<double> row_wave(width), col_wave(height);
  for (int x = 0; x < width; ++x) {
    row_wave[x] = 0.30 * std::sin(x * 0.013 + shift) + 0.12 * std::sin(x * 0.21 + 2 * shift);
  }
  for (int y = 0; y < height; ++y) {
    col_wave[y] = 0.25 * std::cos(y * 0.017 - shift) + 0.10 * std::sin(y * 0.19 + shift);
  }
  const int grain_span = std::max(1, peak / 64);
  SyntheticPlane p(width, height, bit_depth);
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      const uint32_t h = Hash(x, y, seed * 0x9e3779b9u + static_cast<uint32_t>(frame));
      const double tile = (((x + 3 * frame) >> 6) ^ (y >> 6)) & 1 ? 0.08 : -0.08;
      const double level = 0.5 + 0.8 * (row_wave[x] + col_wave[y] + tile);
      const int grain = static_cast<int>(h % (2 * grain_span + 1)) - grain_span;
      p.Set(x, y, static_cast<uint32_t>(std::clamp(static_cast<int>(level * peak) + grain, 0,
                                                   peak)));
    }
  }
  return p;
}

SyntheticPlane TexturedPlane(const Geometry& geometry, uint32_t seed, int frame) {
  return TexturedPlane(geometry.width, geometry.height, geometry.bit_depth, seed, frame);
}

SyntheticPlane Distort(const SyntheticPlane& reference, uint32_t seed, int amplitude,
                       int quantised_bits) {
  const int peak = static_cast<int>(PeakValue(reference.bit_depth));
  SyntheticPlane p = reference;
  for (int y = 0; y < reference.height; ++y) {
    for (int x = 0; x < reference.width; ++x) {
      const uint32_t h = Hash(x, y, seed ^ 0x5bd1e995u);
      const int coarse =
          static_cast<int>(reference.Get(x, y) >> quantised_bits) << quantised_bits;
      const int delta = static_cast<int>(h % (2 * static_cast<uint32_t>(amplitude) + 1)) - amplitude;
      p.Set(x, y, static_cast<uint32_t>(std::clamp(coarse + delta, 0, peak)));
    }
  }
  return p;
}

std::string MarkedFrame(const Geometry& geometry, int frame) {
  const size_t luma = LumaBytes(geometry);
  const size_t chroma = (FrameBytes(geometry) - luma) / 2;
  std::string bytes(FrameBytes(geometry), '\0');
  for (size_t i = 0; i < bytes.size(); ++i) {
    const int plane = i < luma ? 0 : i < luma + chroma ? 1 : 2;
    bytes[i] = static_cast<char>(plane * 80 + frame * 7 + i);
  }
  return bytes;
}

}  // namespace ssimd
