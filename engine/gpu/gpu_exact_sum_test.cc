// The exact ssim frame sum on a device (kernels/exact_sum_kernels.hip) against the host's serial
// sum of the same terms (test hook exact_sum_on_host) and the CPU engine, bit for bit, from 1x1 to
// 4K, with no frame falling back to the host; and the kernel itself on term sequences built for
// its hard cases, launched again and again on one workspace. Skips, saying why, where no GPU can
// be used.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "base/double_bits.h"
#include "engine/cpu/cpu_scorer.h"
#include "engine/gpu/exact_sum.h"
#include "engine/gpu/gpu_scorer.h"
#include "engine/gpu/gpu_test_hooks.h"
#include "engine/gpu/ssim_like_terms.h"
#include "engine/synthetic_picture.h"
#include "gtest/gtest.h"

#if defined(SSIMD_GPU_NVIDIA) || defined(SSIMD_GPU_ROCM)
#include "kernels/exact_sum_kernels.h"
#include "kernels/hip_portability.h"
#define SSIMD_TEST_HAS_GPU_BUILD 1
#endif

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
    fallbacks += s.ssim_exact_fallbacks_serial_budget + s.ssim_exact_fallbacks_check_failed;
  }
  EXPECT_EQ(fallbacks, 0);
  std::printf("exact ssim sums compared on the device: %d frames, %lld fell back to the host\n",
              compared, static_cast<long long>(fallbacks));
}

#ifdef SSIMD_TEST_HAS_GPU_BUILD
// Sequences for the kernel's hard cases: ssim-like terms at frame sizes, a sum that climbs and
// falls through many binades, one that oscillates around zero (the serial budget), exact ties,
// excursions out of a binade and back inside one block, negative sums, subnormal terms.
std::vector<std::pair<std::string, std::vector<double>>> HardSequences() {
  std::vector<std::pair<std::string, std::vector<double>>> out;
  std::mt19937_64 rng(5);
  for (size_t n : {size_t{1}, size_t{300}, size_t{kExactSumBlockTerms},
                   size_t{kExactSumBlockTerms + 1}, size_t{1920 * 1080},
                   size_t{3840 * 2160}}) {
    out.emplace_back("ssim-like " + std::to_string(n), SsimLikeTerms(n, rng));
  }
  std::vector<double> updown;
  for (int i = 0; i < 300000; ++i) updown.push_back((0.5 + (rng() % 1000) / 1000.0) * (1 + i / 64));
  for (int i = 0; i < 300000; ++i) {
    updown.push_back(-(0.5 + (rng() % 1000) / 1000.0) * (1 + (300000 - i) / 64) * 1.01);
  }
  out.emplace_back("up and down", updown);
  std::vector<double> zero;
  for (int i = 0; i < 400000; ++i) zero.push_back(i % 2 == 0 ? 1.0 : -1.0);
  out.emplace_back("around zero", zero);
  std::vector<double> ties = {0x1p53};
  for (int i = 0; i < 200000; ++i) {
    const double choices[] = {0.5, 1.0, 1.5, -0.5};
    ties.push_back(choices[rng() % 4]);
  }
  out.emplace_back("ties", ties);
  std::vector<double> excursions = out[4].second;  // the 1080p ssim-like terms
  for (size_t at : {size_t{70000}, size_t{900001}, size_t{1500007}}) {
    excursions[at] += 0x1p45;
    excursions[at + 1] -= 0x1p45;
  }
  out.emplace_back("excursions", excursions);
  std::vector<double> negative = out[4].second;
  for (double& v : negative) v = -v;
  out.emplace_back("negative", negative);
  std::vector<double> subnormal = out[4].second;
  for (size_t i = 0; i < subnormal.size(); i += 3) subnormal[i] = std::ldexp(1.0, -1060);
  out.emplace_back("subnormal", subnormal);
  return out;
}
#endif

TEST(GpuExactSumTest, KernelEqualsThePlainLoopOnHardSequences) {
#ifndef SSIMD_TEST_HAS_GPU_BUILD
  GTEST_SKIP() << "no GPU to test: built without a GPU configuration";
#else
  int devices = 0;
  if (hipGetDeviceCount(&devices) != hipSuccess || devices == 0) {
    GTEST_SKIP() << "no GPU to test: no device visible";
  }
  const auto sequences = HardSequences();
  size_t largest = 0;
  for (const auto& [name, terms] : sequences) largest = std::max(largest, terms.size());
  double* d_terms = nullptr;
  void* workspace = nullptr;
  ASSERT_EQ(hipMalloc(reinterpret_cast<void**>(&d_terms), largest * sizeof(double)), hipSuccess);
  ASSERT_EQ(hipMalloc(&workspace, ExactSumWorkspaceBytes(static_cast<int64_t>(largest))),
            hipSuccess);
  // Garbage where the workspace's records lie: the launch must not depend on what was there.
  ASSERT_EQ(hipMemset(workspace, 0x5a, ExactSumWorkspaceBytes(static_cast<int64_t>(largest))),
            hipSuccess);
  int on_device = 0;
  int launches = 0;
  for (const auto& [name, terms] : sequences) {
    double expected = 0.0;
    for (double t : terms) expected += t;
    // The host model's decision; the device's budget is shared by blocks running side by side,
    // so only a frame well inside it must stay on the device.
    const ExactSumOutcome model =
        SerialSumByBlocks(terms.data(), static_cast<int64_t>(terms.size()));
    const bool must_stay =
        model.fallback == kExactSumOnDevice && model.serial_terms < kExactSumSerialTermBudget / 2;
    ASSERT_EQ(hipMemcpy(d_terms, terms.data(), terms.size() * sizeof(double),
                        hipMemcpyHostToDevice),
              hipSuccess);
    // Back to back on one workspace: blocks meet their predecessors in different states.
    for (int repeat = 0; repeat < 20; ++repeat) {
      ASSERT_EQ(LaunchExactSerialSum(d_terms, static_cast<int64_t>(terms.size()), workspace,
                                     nullptr),
                hipSuccess);
      ExactSumOutcome outcome{};
      ASSERT_EQ(hipMemcpy(&outcome, ExactSumOutcomeIn(workspace), sizeof(outcome),
                          hipMemcpyDeviceToHost),
                hipSuccess)
          << name;
      ++launches;
      if (outcome.fallback != kExactSumOnDevice) {
        EXPECT_TRUE(outcome.fallback == kExactSumSerialBudget ||
                    outcome.fallback == kExactSumCheckFailed)
            << name;
        EXPECT_FALSE(must_stay) << name << " fell back; the host model added "
                                << model.serial_terms << " terms serially";
        continue;
      }
      ++on_device;
      EXPECT_EQ(DoubleBits(outcome.sum), DoubleBits(expected))
          << name << " launch " << repeat << ": " << outcome.sum << " want " << expected;
    }
  }
  (void)hipFree(d_terms);
  (void)hipFree(workspace);
  std::printf("kernel launches on hard sequences: %d, %d summed on the device\n", launches,
              on_device);
#endif
}

}  // namespace
}  // namespace ssimd
