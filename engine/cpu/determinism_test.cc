// Frame scores never depend on the thread count or the band height: every thread writes its own
// per-pixel values and the sums always run in raster order on one thread.

#include "base/double_bits.h"
#include "base/thread_pool.h"
#include "engine/cpu/cpu_scorer.h"
#include "engine/cpu/float_ssim.h"
#include "engine/cpu/integer_ssim.h"
#include "engine/synthetic_picture.h"
#include "gtest/gtest.h"

namespace ssimd {
namespace {


struct Case {
  int width, height, bit_depth, scale;
};

class Determinism : public ::testing::TestWithParam<Case> {};

TEST_P(Determinism, ThreadsAndBandsDoNotChangeABit) {
  const Case c = GetParam();
  const SyntheticPlane ref = TexturedPlane(c.width, c.height, c.bit_depth, 1);
  const SyntheticPlane dist = Distort(ref, 2, 1 << (c.bit_depth - 5));
  ThreadPool one(1, ThreadPool::Sizing::kWithCaller);
  const FloatSsimMeans base = ComputeFloatSsim(ref.view(), dist.view(), c.scale, true, one);
  const double base_int = ComputeIntegerSsim(ref.view(), dist.view(), one);
  for (int threads : {1, 2, 3, 8}) {
    ThreadPool pool(threads, ThreadPool::Sizing::kWithCaller);
    for (int64_t band : {0, 1, 2, 7, 33}) {
      const FloatSsimMeans m = ComputeFloatSsim(ref.view(), dist.view(), c.scale, true, pool, band);
      EXPECT_TRUE(SameBits(m.ssim, base.ssim)) << threads << " threads, band " << band;
      EXPECT_TRUE(SameBits(m.l, base.l)) << threads << " threads, band " << band;
      EXPECT_TRUE(SameBits(m.c, base.c)) << threads << " threads, band " << band;
      EXPECT_TRUE(SameBits(m.s, base.s)) << threads << " threads, band " << band;
      const double s = ComputeIntegerSsim(ref.view(), dist.view(), pool, band);
      EXPECT_TRUE(SameBits(s, base_int)) << threads << " threads, band " << band;
    }
  }
  EXPECT_GT(base.ssim, 0.0);
  EXPECT_LT(base.ssim, 1.0);
}

INSTANTIATE_TEST_SUITE_P(Sizes, Determinism,
                         ::testing::Values(Case{97, 61, 8, 1}, Case{211, 130, 10, 0},
                                           Case{400, 390, 8, 0}, Case{123, 77, 12, 3},
                                           Case{64, 45, 16, 1}, Case{31, 140, 8, 2}));

TEST(Determinism, ScorerResultsIndependentOfThreadCount) {
  const SyntheticPlane ref = TexturedPlane(853, 481, 8, 3);
  const SyntheticPlane dist = Distort(ref, 4, 12);
  auto features = ParseFeatureArgs({"float_ssim=enable_lcs=1", "ssim"});
  ASSERT_TRUE(features.ok());
  FrameScores first;
  for (int threads : {1, 2, 4}) {
    auto scorer = MakeCpuScorer({.threads = threads});
    auto result = scorer->Score(ref.geometry(), *features, FramePair{ref.view(), dist.view()});
    ASSERT_TRUE(result.ok()) << result.status();
    if (threads == 1) {
      first = result->scores;
      continue;
    }
    ASSERT_EQ(result->scores.size(), first.size());
    for (const auto& [key, value] : first) {
      EXPECT_TRUE(SameBits(result->scores.at(key), value)) << key << " with " << threads;
    }
  }
}

}  // namespace
}  // namespace ssimd
