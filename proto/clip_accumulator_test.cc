#include "proto/clip_accumulator.h"

#include <cmath>
#include <limits>

#include "engine/psnr_scores.h"
#include "gtest/gtest.h"

namespace ssimd {
namespace {

TEST(ClipAccumulatorTest, PoolsInFrameOrderWithLibvmafDefinitions) {
  ClipAccumulator acc;
  const double scores[] = {0.9, 0.5, 0.7, 0.3};
  for (double s : scores) acc.Add({{"float_ssim", s}, {"ssim", 1 - s}}, {}, "cpu", false);
  v1::ClipSummary summary;
  acc.FillSummary({0, 50, 100}, &summary);
  EXPECT_EQ(summary.frames(), 4u);
  const v1::PooledScore& p = summary.pooled().at("float_ssim");
  // The same expressions, evaluated in the same order, as libvmaf's pooling.
  double sum = 0, inverse = 0;
  for (double s : scores) {
    sum += s;
    inverse += 1.0 / (s + 1.0);
  }
  EXPECT_EQ(p.mean(), sum / 4);
  EXPECT_EQ(p.harmonic_mean(), 4 / inverse - 1.0);
  EXPECT_EQ(p.min(), 0.3);
  EXPECT_EQ(p.max(), 0.9);
  ASSERT_EQ(p.percentiles_size(), 3);
  EXPECT_EQ(p.percentiles(0).value(), 0.3);
  EXPECT_EQ(p.percentiles(1).percentile(), 50);
  EXPECT_DOUBLE_EQ(p.percentiles(1).value(), (0.5 + 0.7) / 2);
  EXPECT_EQ(p.percentiles(2).value(), 0.9);
  EXPECT_TRUE(summary.pooled().contains("ssim"));
  EXPECT_EQ(acc.Means().at("float_ssim"), sum / 4);
}

TEST(ClipAccumulatorTest, CountsBackendsAndFallbacks) {
  ClipAccumulator acc;
  acc.Add({{"ssim", 1}}, {}, "gpu:0", false);
  acc.Add({{"ssim", 1}}, {}, "cpu", true);
  acc.Add({{"ssim", 1}}, {}, "cpu", true);
  v1::ClipSummary summary;
  acc.FillSummary({}, &summary);
  EXPECT_EQ(summary.frames_by_backend().at("gpu:0"), 1u);
  EXPECT_EQ(summary.frames_by_backend().at("cpu"), 2u);
  EXPECT_EQ(summary.fallback_frames(), 2u);
}

TEST(ClipAccumulatorTest, EmptyClipHasNoPooledScores) {
  ClipAccumulator acc;
  v1::ClipSummary summary;
  acc.FillSummary({50}, &summary);
  EXPECT_EQ(summary.frames(), 0u);
  EXPECT_TRUE(summary.pooled().empty());
}

TEST(ClipAccumulatorTest, NonFiniteScoresPassThrough) {
  ClipAccumulator acc;
  acc.Add({{"float_ssim", std::numeric_limits<double>::infinity()}}, {}, "cpu", false);
  v1::ClipSummary summary;
  acc.FillSummary({}, &summary);
  EXPECT_TRUE(std::isinf(summary.pooled().at("float_ssim").mean()));
}

TEST(ClipAccumulatorTest, FramesSumsGiveTheAggregateApsnr) {
  ClipAccumulator acc;
  const FrameSums frame = {{"psnr_sse_y", 16},  {"psnr_pixels_y", 16}, {"psnr_sse_cb", 0},
                           {"psnr_pixels_cb", 0}, {"psnr_sse_cr", 0},   {"psnr_pixels_cr", 0},
                           {"psnr_peak", 255}};
  acc.Add({{"psnr_y", 48.13}}, frame, "cpu", false);
  FrameSums second = frame;
  second["psnr_sse_y"] = 17;
  acc.Add({{"psnr_y", 47.9}}, second, "gpu:0", false);
  v1::ClipSummary summary;
  acc.FillSummary({}, &summary);
  FrameSums totals = frame;
  totals["psnr_sse_y"] = 33;
  totals["psnr_pixels_y"] = 32;
  totals["psnr_peak"] = 2 * 255;
  const FrameScores expected = ApsnrScores(totals, 2);
  ASSERT_EQ(summary.aggregate().size(), 3u);
  EXPECT_EQ(summary.aggregate().at("apsnr_y"), expected.at("apsnr_y"));
  EXPECT_TRUE(std::isinf(summary.aggregate().at("apsnr_cb")));

  ClipAccumulator without;
  without.Add({{"psnr_y", 48.13}}, {}, "cpu", false);
  v1::ClipSummary plain;
  without.FillSummary({}, &plain);
  EXPECT_TRUE(plain.aggregate().empty());
}

}  // namespace
}  // namespace ssimd
