// The exact ssim frame sum on a device (kernels/exact_sum_kernels.hip) against the host's serial
// sum of the same terms (test hook exact_sum_on_host) and the CPU engine, bit for bit, from 1x1 to
// 4K, with no frame falling back to the host. Skips, saying why, where no GPU can be used.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "base/double_bits.h"
#include "engine/cpu/cpu_scorer.h"
#include "engine/gpu/gpu_scorer.h"
#include "engine/gpu/gpu_test_hooks.h"
#include "engine/synthetic_picture.h"
#include "gtest/gtest.h"

namespace ssimd {
namespace {

// A reference plane (textured, or flat) and a distorted copy (engine/synthetic_picture.h).
struct Pair {
  Geometry geometry;
  SyntheticPlane ref, dist;
  FramePair view() const { return FramePair{ref.view(), dist.view()}; }
};

Pair MakePair(int width, int height, int bit_depth, bool flat, uint32_t seed) {
  Pair p;
  p.geometry = Geometry{width, height, bit_depth, ChromaFormat::k420};
  p.ref = flat ? FlatPlane(width, height, bit_depth, PeakValue(bit_depth) / 3)
               : TexturedPlane(width, height, bit_depth, seed);
  p.dist = Distort(p.ref, seed + 1, 6);
  return p;
}

TEST(GpuExactSumTest, DeviceEqualsHostSerialSumAndCpu) {
  auto hooks = std::make_shared<GpuTestHooks>();
  GpuOptions options;
  options.streams_per_device = 1;
  absl::StatusOr<std::unique_ptr<GpuScorer>> gpu = MakeGpuScorerWithHooks(options, hooks);
  if (!gpu.ok()) GTEST_SKIP() << "no GPU to test: " << gpu.status().message();
  std::unique_ptr<Scorer> cpu = MakeCpuScorer();
  FeatureSet features;
  features.ssim = IntegerSsimOptions{};
  features.ssim->exact = true;
  struct Size {
    int width, height, bit_depth;
  };
  const Size sizes[] = {{1, 1, 8},     {17, 3, 10},    {64, 64, 8},     {65, 64, 12},
                        {333, 77, 16}, {1280, 720, 8}, {1920, 1080, 10}, {3840, 2160, 8}};
  int compared = 0;
  for (const Size& s : sizes) {
    for (bool flat : {false, true}) {
      const Pair pair = MakePair(s.width, s.height, s.bit_depth, flat, s.width * 7 + s.height);
      hooks->exact_sum_on_host = false;
      absl::StatusOr<ScoreResult> device = (*gpu)->Score(pair.geometry, features, pair.view());
      hooks->exact_sum_on_host = true;
      absl::StatusOr<ScoreResult> host = (*gpu)->Score(pair.geometry, features, pair.view());
      absl::StatusOr<ScoreResult> reference = cpu->Score(pair.geometry, features, pair.view());
      ASSERT_TRUE(device.ok() && host.ok() && reference.ok());
      const std::string what = std::to_string(s.width) + "x" + std::to_string(s.height) +
                               (flat ? " flat" : " textured");
      EXPECT_EQ(DoubleBits(device->scores.at("ssim")), DoubleBits(host->scores.at("ssim"))) << what;
      EXPECT_EQ(DoubleBits(device->scores.at("ssim")), DoubleBits(reference->scores.at("ssim"))) << what;
      ++compared;
    }
  }
  int64_t fallbacks = 0;
  for (const GpuDeviceStats& s : (*gpu)->Stats()) {
    fallbacks += s.ssim_exact_fallbacks_too_many_runs + s.ssim_exact_fallbacks_serial_budget;
  }
  EXPECT_EQ(fallbacks, 0);
  std::printf("exact ssim sums compared on the device: %d frames, %lld fell back to the host\n",
              compared, static_cast<long long>(fallbacks));
}

}  // namespace
}  // namespace ssimd
