#include "bench/synthetic_frames.h"

#include <algorithm>
#include <thread>

#include "engine/synthetic_picture.h"

namespace ssimd::bench {
namespace {

void MakePair(const Geometry& g, uint32_t seed, int frame, std::string& ref, std::string& dist) {
  const SyntheticPlane reference = TexturedPlane(g, seed, frame);
  // The distortion quantises away about two bits of an 8-bit picture, at any depth, and adds noise
  // of about 1/64 of the range.
  const int quantised_bits = 2 + (g.bit_depth - 8);
  const int noise = std::max(1, static_cast<int>(PeakValue(g.bit_depth) / 64));
  ref = reference.ToString();
  dist = Distort(reference, seed + static_cast<uint32_t>(frame), noise, quantised_bits).ToString();
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
