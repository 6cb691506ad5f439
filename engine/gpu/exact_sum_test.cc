#include "engine/gpu/exact_sum.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "kernels/float_ssim_math.h"
#include "kernels/integer_ssim_math.h"

namespace ssimd {
namespace {

// A pairwise (tree) sum, as a GPU block reduction forms it.
SumWithMagnitude TreeSum(const std::vector<double>& terms) {
  std::vector<double> sum(terms), mag(terms.size());
  for (size_t i = 0; i < terms.size(); ++i) mag[i] = std::fabs(terms[i]);
  while (sum.size() > 1) {
    std::vector<double> next_sum, next_mag;
    for (size_t i = 0; i < sum.size(); i += 2) {
      next_sum.push_back(i + 1 < sum.size() ? sum[i] + sum[i + 1] : sum[i]);
      next_mag.push_back(i + 1 < mag.size() ? mag[i] + mag[i + 1] : mag[i]);
    }
    sum.swap(next_sum);
    mag.swap(next_mag);
  }
  return {sum[0], mag[0]};
}

// SSIM-like terms: mostly close to 1, some negative, a few tiny.
std::vector<double> RandomTerms(std::mt19937_64& rng, size_t n) {
  std::uniform_real_distribution<double> near_one(0.2, 1.0);
  std::uniform_real_distribution<double> any(-1.0, 1.0);
  std::vector<double> terms(n);
  for (double& t : terms) t = (rng() % 8 == 0) ? any(rng) : near_one(rng);
  return terms;
}

TEST(ExactSumTest, BoundCoversEveryOrderTried) {
  std::mt19937_64 rng(7);
  for (size_t n : {2u, 3u, 17u, 1000u, 65536u}) {
    std::vector<double> terms = RandomTerms(rng, n);
    const double raster = SumInOrder(terms.data(), terms.size());
    const SumWithMagnitude tree = TreeSum(terms);
    std::vector<double> reversed(terms.rbegin(), terms.rend());
    std::vector<double> sorted(terms);
    std::sort(sorted.begin(), sorted.end());
    const double bound = SummationOrderBound(static_cast<int64_t>(n), tree.abs_sum);
    EXPECT_LE(std::fabs(tree.sum - raster), bound) << n;
    EXPECT_LE(std::fabs(SumInOrder(reversed.data(), n) - raster), bound) << n;
    EXPECT_LE(std::fabs(SumInOrder(sorted.data(), n) - raster), bound) << n;
    EXPECT_GT(bound, 0.0);
  }
  EXPECT_EQ(SummationOrderBound(1, 5.0), 0.0);
}

TEST(ExactSumTest, CertainMeanAlwaysEqualsTheRasterOrderMean) {
  std::mt19937_64 rng(11);
  int certain = 0;
  int trials = 0;
  for (int w : {1, 3, 64, 470, 1000}) {
    for (int h : {1, 7, 260}) {
      for (int k = 0; k < 4; ++k) {
        std::vector<double> terms = RandomTerms(rng, static_cast<size_t>(w) * h);
        const double expected = FloatSsimMean(SumInOrder(terms.data(), terms.size()), w, h);
        const std::optional<double> mean =
            CertainFloatSsimMean(TreeSum(terms), static_cast<int64_t>(terms.size()), w, h);
        ++trials;
        if (mean.has_value()) {
          ++certain;
          EXPECT_EQ(*mean, expected) << w << "x" << h;
        }
      }
    }
  }
  // The ordered host sum is the rare path: ties within ~1e-10 of a binary32 boundary.
  EXPECT_GE(certain, trials - 2);
}

TEST(ExactSumTest, AMeanOnARoundingBoundaryNeedsTheOrderedSum) {
  // Two terms whose mean is exactly the midpoint between 1 and the next binary32 value: any
  // rounding of the sum decides the result, so the device's sum cannot be trusted.
  const double midpoint = 1.0 + 0x1p-24;
  const std::vector<double> terms = {midpoint, midpoint};
  EXPECT_FALSE(CertainFloatSsimMean(TreeSum(terms), 2, 2, 1).has_value());
  // Well inside a binary32 interval, the device's sum suffices.
  const std::vector<double> inside = {0.75, 0.5};
  EXPECT_EQ(CertainFloatSsimMean(TreeSum(inside), 2, 2, 1), 0.625);
}

TEST(ExactSumTest, NonFiniteSumsNeedTheOrderedSum) {
  EXPECT_FALSE(CertainFloatSsimMean({NAN, 1.0}, 4, 2, 2).has_value());
  EXPECT_FALSE(CertainFloatSsimMean({1.0, INFINITY}, 4, 2, 2).has_value());
}

TEST(ExactSumTest, AMeanThatCouldBeEitherSignedZeroNeedsTheOrderedSum) {
  EXPECT_FALSE(CertainFloatSsimMean({0.0, 2.0}, 4, 2, 2).has_value());
}

TEST(ExactSumTest, BlockPartialsAddInBlockOrder) {
  // Two quantities per block, records of (sum, |sum|).
  const double partials[] = {1.0, 1.0, 5.0, 5.0, -2.0, 2.0, 6.0, 6.0};
  const SumWithMagnitude first = AddBlockPartials(partials, 2, 4, 0);
  EXPECT_EQ(first.sum, -1.0);
  EXPECT_EQ(first.abs_sum, 3.0);
  const SumWithMagnitude second = AddBlockPartials(partials, 2, 4, 2);
  EXPECT_EQ(second.sum, 11.0);
}

TEST(ExactSumTest, IntegerWeightSumEqualsTheRasterOrderSum) {
  for (auto [w, h] :
       {std::pair{1, 1}, {2, 2}, {3, 5}, {9, 9}, {64, 64}, {853, 481}, {1920, 1080}}) {
    double raster = 0.0;
    for (int y = 0; y < h; ++y) {
      for (int x = 0; x < w; ++x) {
        raster += static_cast<double>(ClippedWindowWeight(x, w) * ClippedWindowWeight(y, h));
      }
    }
    EXPECT_EQ(static_cast<double>(IntegerSsimWeightSum(w, h)), raster) << w << "x" << h;
  }
  EXPECT_EQ(IntegerSsimWeightSum(1, 1), 68 * 68);
}

}  // namespace
}  // namespace ssimd
