#include "bench/synthetic_frames.h"

#include <algorithm>
#include <cmath>
#include <thread>

namespace ssimd::bench {
namespace {

// A small stateless hash: the same (x, y, frame) always gives the same noise, on any thread.
uint32_t Hash(uint32_t x, uint32_t y, uint32_t z) {
  uint32_t h = x * 0x8da6b343u ^ y * 0xd8163841u ^ z * 0xcb1ab31fu;
  h ^= h >> 15;
  h *= 0x2c1b3c6du;
  h ^= h >> 12;
  h *= 0x297a2d39u;
  h ^= h >> 15;
  return h;
}

void Store(std::string& plane, size_t index, int bytes_per_sample, int value) {
  if (bytes_per_sample == 1) {
    plane[index] = static_cast<char>(value);
  } else {
    plane[2 * index] = static_cast<char>(value & 0xff);
    plane[2 * index + 1] = static_cast<char>(value >> 8);
  }
}

void MakePair(const Geometry& g, uint32_t seed, int frame, std::string& ref, std::string& dist) {
  const int bps = BytesPerSample(g.bit_depth);
  const int peak = static_cast<int>(PeakValue(g.bit_depth));
  const size_t samples = static_cast<size_t>(g.width) * g.height;
  ref.assign(samples * bps, '\0');
  dist.assign(samples * bps, '\0');
  // Separable texture: two sine tables per frame keep the per-pixel work to a few additions, so
  // a 4K pair takes tens of milliseconds to make.
  const double shift = 0.07 * frame;
  std::vector<double> row_wave(g.width), col_wave(g.height);
  for (int x = 0; x < g.width; ++x) {
    row_wave[x] = 0.30 * std::sin(x * 0.013 + shift) + 0.12 * std::sin(x * 0.21 + 2 * shift);
  }
  for (int y = 0; y < g.height; ++y) {
    col_wave[y] = 0.25 * std::cos(y * 0.017 - shift) + 0.10 * std::sin(y * 0.19 + shift);
  }
  // The distortion quantises away about two bits of an 8-bit picture, at any depth.
  const int quant_shift = 2 + (g.bit_depth - 8);
  const int noise_span = std::max(1, peak / 64);
  for (int y = 0; y < g.height; ++y) {
    for (int x = 0; x < g.width; ++x) {
      const uint32_t h = Hash(x, y, seed + frame);
      // A checkerboard of 64-pixel tiles adds hard edges to the smooth waves.
      const double tile = (((x + 3 * frame) >> 6) ^ (y >> 6)) & 1 ? 0.08 : -0.08;
      const double level = 0.5 + row_wave[x] + col_wave[y] + tile;
      const int grain = static_cast<int>(h % (2 * noise_span + 1)) - noise_span;
      const int r = std::clamp(static_cast<int>(level * peak) + grain, 0, peak);
      const int coarse = (r >> quant_shift) << quant_shift;
      const int noise = static_cast<int>((h >> 16) % (2 * noise_span + 1)) - noise_span;
      const int d = std::clamp(coarse + noise, 0, peak);
      const size_t i = static_cast<size_t>(y) * g.width + x;
      Store(ref, i, bps, r);
      Store(dist, i, bps, d);
    }
  }
}

}  // namespace

FramePair FrameSet::Pair(int index) const {
  const size_t stride = static_cast<size_t>(geometry.width) * BytesPerSample(geometry.bit_depth);
  const auto view = [&](const std::string& plane) {
    return LumaView{reinterpret_cast<const uint8_t*>(plane.data()), stride, geometry.width,
                    geometry.height, geometry.bit_depth};
  };
  return FramePair{view(reference[index]), view(distorted[index])};
}

FrameSet MakeFrameSet(const Geometry& geometry, int count, uint32_t seed, int threads) {
  FrameSet set;
  set.geometry = geometry;
  set.reference.resize(count);
  set.distorted.resize(count);
  threads = std::max(1, std::min(threads, count));
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      for (int f = t; f < count; f += threads) {
        MakePair(geometry, seed, f, set.reference[f], set.distorted[f]);
      }
    });
  }
  for (std::thread& w : workers) w.join();
  return set;
}

}  // namespace ssimd::bench
