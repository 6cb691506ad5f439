#include "client/clip_resume.h"

#include <cmath>

#include "gtest/gtest.h"

namespace ssimd {
namespace {

v1::FrameResult Frame(uint64_t index, double score, const std::string& backend,
                      const std::string& fallback = "") {
  v1::FrameResult frame;
  frame.set_index(index);
  (*frame.mutable_scores())["ssim"] = score;
  frame.set_backend(backend);
  frame.set_fallback_reason(fallback);
  return frame;
}

TEST(SummarizeFramesTest, PoolsEveryFrameAsOneStreamWould) {
  const std::vector<v1::FrameResult> frames = {
      Frame(0, 0.5, "gpu:0"), Frame(1, 0.25, "cpu", "too small"), Frame(2, 1.0, "gpu:0"),
      Frame(3, 0.75, "gpu:0")};
  const v1::ClipSummary summary = SummarizeFrames(frames, {0, 50, 100});
  EXPECT_EQ(summary.frames(), 4u);
  EXPECT_EQ(summary.fallback_frames(), 1u);
  EXPECT_EQ(summary.frames_by_backend().at("gpu:0"), 3u);
  EXPECT_EQ(summary.frames_by_backend().at("cpu"), 1u);
  const v1::PooledScore& ssim = summary.pooled().at("ssim");
  EXPECT_EQ(ssim.mean(), 0.625);
  EXPECT_EQ(ssim.min(), 0.25);
  EXPECT_EQ(ssim.max(), 1.0);
  // n / sum(1/(s+1)) - 1 over 1.5, 1.25, 2, 1.75.
  const double inverse_sum = 1 / 1.5 + 1 / 1.25 + 1 / 2.0 + 1 / 1.75;
  EXPECT_DOUBLE_EQ(ssim.harmonic_mean(), 4 / inverse_sum - 1);
  ASSERT_EQ(ssim.percentiles_size(), 3);
  EXPECT_EQ(ssim.percentiles(0).value(), 0.25);
  EXPECT_EQ(ssim.percentiles(1).value(), 0.625);  // between 0.5 and 0.75
  EXPECT_EQ(ssim.percentiles(2).value(), 1.0);
  EXPECT_EQ(summary.elapsed_seconds(), 0);
}

TEST(SummarizeFramesTest, NoFramesNoPooledScores) {
  const v1::ClipSummary summary = SummarizeFrames({}, {50});
  EXPECT_EQ(summary.frames(), 0u);
  EXPECT_TRUE(summary.pooled().empty());
}

}  // namespace
}  // namespace ssimd
