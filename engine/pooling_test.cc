#include "engine/pooling.h"

#include <cmath>
#include <limits>
#include <vector>

#include "gtest/gtest.h"

namespace ssimd {
namespace {

// A 2-frame 64x48 libvmaf run printed with --precision max (docs/numerics.md §17): the per-frame
// scores and libvmaf's own pooled values.
TEST(PoolScores, EqualsLibvmafsPooledOutputBitForBit) {
  const std::vector<double> float_ssim = {0.99663001298904419, 0.99660444259643555};
  auto pooled = PoolScores(float_ssim);
  ASSERT_TRUE(pooled.ok());
  EXPECT_EQ(pooled->min, 0.99660444259643555);
  EXPECT_EQ(pooled->max, 0.99663001298904419);
  EXPECT_EQ(pooled->mean, 0.99661722779273987);
  EXPECT_EQ(pooled->harmonic_mean, 0.99661722771087069);

  const std::vector<double> ssim = {0.99659294940946785, 0.99658443815546516};
  auto integer = PoolScores(ssim);
  ASSERT_TRUE(integer.ok());
  EXPECT_EQ(integer->min, 0.99658443815546516);
  EXPECT_EQ(integer->max, 0.99659294940946785);
  EXPECT_EQ(integer->mean, 0.99658869378246651);
  EXPECT_EQ(integer->harmonic_mean, 0.99658869377339565);
}

TEST(PoolScores, HarmonicMeanIsLibvmafsShiftedForm) {
  // n / sum(1/(s+1)) - 1 = 2 / (1/1.5 + 1/3) - 1 = 1.
  auto pooled = PoolScores(std::vector<double>{0.5, 2.0});
  ASSERT_TRUE(pooled.ok());
  EXPECT_EQ(pooled->harmonic_mean, 1.0);
  EXPECT_EQ(pooled->mean, 1.25);
}

TEST(PoolScores, SumsInFrameOrder) {
  // 1 + 2^-53 + 2^-53 is 1 in frame order but 1 + 2^-52 if the small terms were added first.
  const double tiny = std::ldexp(1.0, -53);
  auto pooled = PoolScores(std::vector<double>{1.0, tiny, tiny});
  ASSERT_TRUE(pooled.ok());
  EXPECT_EQ(pooled->mean, 1.0 / 3.0);
}

TEST(PoolScores, MinAndMaxFollowCComparisons) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  auto later_nan = PoolScores(std::vector<double>{0.5, nan, 0.25});
  ASSERT_TRUE(later_nan.ok());
  EXPECT_EQ(later_nan->min, 0.25);
  EXPECT_EQ(later_nan->max, 0.5);
  EXPECT_TRUE(std::isnan(later_nan->mean));
  auto first_nan = PoolScores(std::vector<double>{nan, 0.5});
  EXPECT_TRUE(std::isnan(first_nan->min));
  EXPECT_TRUE(std::isnan(first_nan->max));
  // Identical frames in dB: +inf everywhere; harmonic mean n / 0 - 1 = +inf.
  auto db = PoolScores(std::vector<double>{inf, inf});
  EXPECT_EQ(db->mean, inf);
  EXPECT_EQ(db->harmonic_mean, inf);
}

TEST(ScorePooler, StreamsTheSameValues) {
  ScorePooler pooler;
  EXPECT_FALSE(pooler.Result().ok());
  const std::vector<double> scores = {0.9, 0.75, 0.999, 0.5};
  for (double s : scores) pooler.Add(s);
  EXPECT_EQ(pooler.count(), 4u);
  auto streamed = pooler.Result();
  auto whole = PoolScores(scores);
  ASSERT_TRUE(streamed.ok() && whole.ok());
  EXPECT_EQ(streamed->mean, whole->mean);
  EXPECT_EQ(streamed->harmonic_mean, whole->harmonic_mean);
  EXPECT_EQ(streamed->min, 0.5);
  EXPECT_EQ(streamed->max, 0.999);
}

TEST(PoolScores, RefusesNoFrames) {
  auto pooled = PoolScores({});
  EXPECT_EQ(pooled.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(Percentile, InterpolatesBetweenClosestRanks) {
  const std::vector<double> s = {4.0, 1.0, 3.0, 2.0, 5.0};  // order does not matter
  EXPECT_EQ(*Percentile(s, 0), 1.0);
  EXPECT_EQ(*Percentile(s, 100), 5.0);
  EXPECT_EQ(*Percentile(s, 50), 3.0);
  EXPECT_EQ(*Percentile(s, 25), 2.0);
  EXPECT_EQ(*Percentile(s, 10), 1.4);  // rank 0.4 between 1 and 2
  EXPECT_EQ(*Percentile(std::vector<double>{7.0}, 5), 7.0);
  EXPECT_EQ(*Percentile(std::vector<double>{1.0, 2.0}, 50), 1.5);
}

TEST(Percentile, PutsNanLastAndRefusesBadInput) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<double> s = {nan, 0.25, 0.5};
  EXPECT_EQ(*Percentile(s, 0), 0.25);
  EXPECT_EQ(*Percentile(s, 50), 0.5);
  EXPECT_TRUE(std::isnan(*Percentile(s, 100)));
  EXPECT_EQ(Percentile({}, 50).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Percentile(s, 101).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Percentile(s, -1).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Percentile(s, nan).status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace ssimd
