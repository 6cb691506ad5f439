#include "bench/stats.h"

#include <cmath>
#include <limits>

#include "gtest/gtest.h"

namespace ssimd::bench {
namespace {

TEST(PercentileTest, InterpolatesBetweenClosestRanks) {
  // 1..100 in shuffled order: rank of p50 is 49.5, between 50 and 51.
  std::vector<double> v;
  for (int i = 100; i >= 1; --i) v.push_back(i);
  EXPECT_DOUBLE_EQ(Percentile(v, 50), 50.5);
  EXPECT_DOUBLE_EQ(Percentile(v, 0), 1);
  EXPECT_DOUBLE_EQ(Percentile(v, 100), 100);
  // Rank 0.99 * 99 = 98.01: 99 + 0.01 * (100 - 99).
  EXPECT_NEAR(Percentile(v, 99), 99.01, 1e-9);
}

TEST(PercentileTest, EmptyAndSingle) {
  EXPECT_EQ(Percentile({}, 50), 0);
  EXPECT_EQ(Percentile({7.5}, 99), 7.5);
}

TEST(ScoreCheckTest, CountsBitExactMatchesOnly) {
  ScoreCheck check;
  check.Compare({{"float_ssim", 0.25}}, {{"float_ssim", 0.25}}, 0);
  const double next = std::nextafter(0.25, 1.0);
  check.Compare({{"float_ssim", next}}, {{"float_ssim", 0.25}}, 1);
  EXPECT_EQ(check.checked, 2);
  EXPECT_EQ(check.mismatched, 1);
  EXPECT_DOUBLE_EQ(check.max_abs_diff, next - 0.25);
  EXPECT_NE(check.first_mismatch.find("frame 1 float_ssim"), std::string::npos)
      << check.first_mismatch;
}

TEST(ScoreCheckTest, NanEqualsNanAndMissingMetricsDiffer) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  ScoreCheck check;
  check.Compare({{"ssim", nan}}, {{"ssim", nan}}, 0);
  EXPECT_EQ(check.mismatched, 0);
  check.Compare({{"float_ssim", 1.0}}, {{"float_ssim", 1.0}, {"ssim", 1.0}}, 4);
  EXPECT_EQ(check.mismatched, 1);
  EXPECT_NE(check.first_mismatch.find("ssim missing"), std::string::npos) << check.first_mismatch;
}

TEST(ScoreCheckTest, MergeAddsCountsAndKeepsTheLargestDifference) {
  ScoreCheck a, b;
  a.Compare({{"x", 1.0}}, {{"x", 1.5}}, 0);
  b.Compare({{"x", 1.0}}, {{"x", 3.0}}, 9);
  b.Compare({{"x", 1.0}}, {{"x", 1.0}}, 10);
  a.Merge(b);
  EXPECT_EQ(a.checked, 3);
  EXPECT_EQ(a.mismatched, 2);
  EXPECT_DOUBLE_EQ(a.max_abs_diff, 2.0);
  EXPECT_NE(a.first_mismatch.find("frame 0"), std::string::npos);
}

TEST(RatesTest, PairsPerSecondAndLumaGigabytes) {
  CellResult cell;
  cell.pairs = 300;
  cell.seconds = 2;
  // A 1080p 8-bit pair: two planes of 1920*1080 bytes.
  SetRates(cell, 2 * 1920 * 1080);
  EXPECT_DOUBLE_EQ(cell.pairs_per_second, 150);
  EXPECT_NEAR(cell.gb_per_second, 150 * 4147200 / 1e9, 1e-12);
  SetLatencies(cell, {0.001, 0.002, 0.003});
  EXPECT_DOUBLE_EQ(cell.latency_p50_ms, 2);
}

}  // namespace
}  // namespace ssimd::bench
