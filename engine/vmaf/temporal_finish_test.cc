#include "engine/vmaf/temporal_finish.h"

#include <vector>

#include "engine/vmaf/model.h"
#include "engine/vmaf/test_model.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace ssimd {
namespace {

using ::testing::HasSubstr;

FeatureSet WithVmaf() {
  FeatureSet features;
  features.vmaf = VmafOptions{};
  features.vmaf->resolved = SixFeatureTestModel();
  return features;
}

// One frame's per-frame values as a backend reports them, varied by `i`.
FrameScores FrameValues(int i, double sad) {
  return {{"integer_adm2", 0.90 + 0.01 * i},
          {"integer_vif_scale0", 0.40 + 0.02 * i},
          {"integer_vif_scale1", 0.70 + 0.01 * i},
          {"integer_vif_scale2", 0.80 + 0.01 * i},
          {"integer_vif_scale3", 0.85 + 0.01 * i},
          {kMotionSadScoreName, sad}};
}

TEST(TemporalFinish, WithoutTemporalFeaturesEveryFrameIsFinalAtOnce) {
  FeatureSet features;
  features.float_ssim = FloatSsimOptions{};
  TemporalFinish finish(features);
  FrameScores scores = {{"float_ssim", 0.9}};
  ASSERT_TRUE(finish.Add(scores).ok());
  EXPECT_EQ(finish.frames_final(), 1u);
  absl::StatusOr<FrameScores> added = finish.Complete(0, scores);
  ASSERT_TRUE(added.ok()) << added.status();
  EXPECT_TRUE(added->empty());
  EXPECT_EQ(scores.size(), 1u);
}

TEST(TemporalFinish, VmafFramesWaitForTheirSuccessor) {
  const FeatureSet features = WithVmaf();
  TemporalFinish finish(features);
  const std::vector<double> sads = {0.0, 3.0, 1.0, 2.0};
  std::vector<FrameScores> frames;
  for (int i = 0; i < 4; ++i) frames.push_back(FrameValues(i, sads[i]));

  ASSERT_TRUE(finish.Add(frames[0]).ok());
  EXPECT_EQ(finish.frames_final(), 0u) << "frame 0's motion3 takes frame 1's motion";
  for (int i = 1; i < 4; ++i) {
    ASSERT_TRUE(finish.Add(frames[i]).ok());
    EXPECT_EQ(finish.frames_final(), static_cast<uint64_t>(i)) << "after frame " << i;
  }
  finish.EndOfInput();
  EXPECT_EQ(finish.frames_final(), 4u);

  // libvmaf's motion2: 0 for the first frame, the lesser of a frame's and its successor's
  // motion, and the last frame's own.
  const std::vector<double> motion2 = {0.0, 1.0, 1.0, 2.0};
  for (int i = 0; i < 4; ++i) {
    absl::StatusOr<FrameScores> added = finish.Complete(i, frames[i]);
    ASSERT_TRUE(added.ok()) << added.status();
    EXPECT_EQ(frames[i].at("integer_motion2"), motion2[i]) << "frame " << i;
    EXPECT_EQ(added->at("integer_motion2"), motion2[i]);
    EXPECT_TRUE(added->count("integer_motion3"));
    // The prediction reads the model's features in its order, motion2 among them.
    const std::vector<double> in_model_order = {
        frames[i].at("integer_adm2"),       motion2[i],
        frames[i].at("integer_vif_scale0"), frames[i].at("integer_vif_scale1"),
        frames[i].at("integer_vif_scale2"), frames[i].at("integer_vif_scale3")};
    absl::StatusOr<double> expected =
        PredictVmaf(*features.vmaf->resolved, VmafModelOptions{}, in_model_order);
    ASSERT_TRUE(expected.ok()) << expected.status();
    EXPECT_EQ(frames[i].at("vmaf"), *expected) << "frame " << i;
    EXPECT_EQ(added->at("vmaf"), *expected);
  }
}

TEST(TemporalFinish, FramesAreCompletedInOrder) {
  TemporalFinish finish(WithVmaf());
  FrameScores a = FrameValues(0, 0.0);
  FrameScores b = FrameValues(1, 1.0);
  ASSERT_TRUE(finish.Add(a).ok());
  ASSERT_TRUE(finish.Add(b).ok());
  finish.EndOfInput();
  EXPECT_THAT(finish.Complete(1, b).status().message(), HasSubstr("out of order"));
}

TEST(TemporalFinish, RefusesFramesWithoutMotion) {
  TemporalFinish finish(WithVmaf());
  FrameScores scores = FrameValues(0, 0.0);
  scores.erase(kMotionSadScoreName);
  EXPECT_THAT(finish.Add(scores).message(), HasSubstr(kMotionSadScoreName));
}

TEST(TemporalFinish, ALoneFrameHasNoMotion) {
  FrameScores scores = FrameValues(0, 5.0);
  absl::StatusOr<FrameScores> added = FinishLoneFrame(WithVmaf(), scores);
  ASSERT_TRUE(added.ok()) << added.status();
  EXPECT_EQ(scores.at("integer_motion2"), 0.0);
  EXPECT_TRUE(scores.count("vmaf"));
}

}  // namespace
}  // namespace ssimd
