#include "engine/vmaf/motion_series.h"

#include <cstdint>
#include <limits>
#include <vector>

#include "gtest/gtest.h"

namespace ssimd {
namespace {

MotionSeries Make(const MotionSeriesOptions& options = {}) {
  absl::StatusOr<MotionSeries> series = MotionSeries::Create(options);
  EXPECT_TRUE(series.ok()) << series.status();
  return std::move(*series);
}

// Adds `sad` and returns the frames that became final.
std::vector<MotionFrame> AddAndTake(MotionSeries& series, double sad) {
  EXPECT_TRUE(series.Add(sad).ok());
  return series.TakeFinished();
}

void ExpectFrame(const MotionFrame& f, int64_t index, double motion2, double motion3) {
  EXPECT_EQ(f.index, index);
  EXPECT_EQ(f.motion2, motion2) << "frame " << index;
  EXPECT_EQ(f.motion3, motion3) << "frame " << index;
}

// Every frame is final one frame later: frame 0 carries frame 1's sad (the stamp) and waits for it.
TEST(MotionSeries, DefaultsLagOneFrame) {
  MotionSeries s = Make();
  EXPECT_TRUE(AddAndTake(s, 0.0).empty());
  auto got = AddAndTake(s, 2.0);
  ASSERT_EQ(got.size(), 1u);
  ExpectFrame(got[0], 0, 0.0, 2.0);
  got = AddAndTake(s, 3.0);
  ASSERT_EQ(got.size(), 1u);
  ExpectFrame(got[0], 1, 2.0, 2.0);  // min(sad[1], sad[2])
  got = AddAndTake(s, 1.0);
  ASSERT_EQ(got.size(), 1u);
  ExpectFrame(got[0], 2, 1.0, 1.0);  // min(sad[2], sad[3])
  EXPECT_TRUE(s.TakeFinished().empty());
  s.Finish();
  got = s.TakeFinished();
  ASSERT_EQ(got.size(), 1u);
  ExpectFrame(got[0], 3, 1.0, 1.0);  // the last frame keeps its own sad
  EXPECT_EQ(s.added(), 4);
  EXPECT_TRUE(s.finished());
}

TEST(MotionSeries, ShortSeriesFinish) {
  MotionSeries empty = Make();
  empty.Finish();
  EXPECT_TRUE(empty.TakeFinished().empty());

  // One frame: no later sad for the stamp, so motion3 is 0.
  MotionSeries one = Make();
  EXPECT_TRUE(AddAndTake(one, 0.0).empty());
  one.Finish();
  auto got = one.TakeFinished();
  ASSERT_EQ(got.size(), 1u);
  ExpectFrame(got[0], 0, 0.0, 0.0);
}

// With the window the first two frames have no sad and carry frame 2's; frame 2 compares only
// with frame 3, later frames take the minimum of their two neighbours' sads.
TEST(MotionSeries, FiveFrameWindow) {
  MotionSeriesOptions options;
  options.five_frame_window = true;
  MotionSeries s = Make(options);
  EXPECT_TRUE(AddAndTake(s, 0.0).empty());
  EXPECT_TRUE(AddAndTake(s, 0.0).empty());
  auto got = AddAndTake(s, 4.0);
  ASSERT_EQ(got.size(), 2u);
  ExpectFrame(got[0], 0, 0.0, 4.0);
  ExpectFrame(got[1], 1, 0.0, 4.0);
  got = AddAndTake(s, 6.0);
  ASSERT_EQ(got.size(), 1u);
  ExpectFrame(got[0], 2, 6.0, 6.0);
  got = AddAndTake(s, 5.0);
  ASSERT_EQ(got.size(), 1u);
  ExpectFrame(got[0], 3, 4.0, 4.0);  // min(sad[2], sad[4])
  got = AddAndTake(s, 7.0);
  ASSERT_EQ(got.size(), 1u);
  ExpectFrame(got[0], 4, 6.0, 6.0);  // min(sad[3], sad[5])
  s.Finish();
  got = s.TakeFinished();
  ASSERT_EQ(got.size(), 1u);
  ExpectFrame(got[0], 5, 7.0, 7.0);
}

TEST(MotionSeries, FiveFrameWindowEndingBeforeThirdFrame) {
  MotionSeriesOptions options;
  options.five_frame_window = true;
  MotionSeries s = Make(options);
  EXPECT_TRUE(AddAndTake(s, 0.0).empty());
  EXPECT_TRUE(AddAndTake(s, 0.0).empty());
  s.Finish();
  auto got = s.TakeFinished();
  ASSERT_EQ(got.size(), 2u);
  ExpectFrame(got[0], 0, 0.0, 0.0);
  ExpectFrame(got[1], 1, 0.0, 0.0);
}

// blend(x) = 0.5x + 0.5 min(2, x); motion3 averages a frame's blend with the previous one (the
// stamp before frame 1). Every value is exact in binary64.
TEST(MotionSeries, BlendAndMovingAverage) {
  MotionSeriesOptions options;
  options.blend_factor = 0.5;
  options.blend_offset = 2.0;
  options.moving_average = true;
  MotionSeries s = Make(options);
  for (double sad : {0.0, 4.0, 1.0, 3.0}) ASSERT_TRUE(s.Add(sad).ok());
  s.Finish();
  auto got = s.TakeFinished();
  ASSERT_EQ(got.size(), 4u);
  ExpectFrame(got[0], 0, 0.0, 3.0);   // stamp: blend(4) = 2 + 1
  ExpectFrame(got[1], 1, 1.0, 2.0);   // blend(1) = 1, (1 + 3) / 2
  ExpectFrame(got[2], 2, 1.0, 1.0);   // blend(1) = 1, (1 + 1) / 2
  ExpectFrame(got[3], 3, 3.0, 1.75);  // blend(3) = 2.5, (2.5 + 1) / 2
}

TEST(MotionSeries, MaxValCapsTheBlendedScoresNotMotion2) {
  MotionSeriesOptions options;
  options.max_val = 2.5;
  MotionSeries s = Make(options);
  for (double sad : {0.0, 4.0, 5.0}) ASSERT_TRUE(s.Add(sad).ok());
  s.Finish();
  auto got = s.TakeFinished();
  ASSERT_EQ(got.size(), 3u);
  ExpectFrame(got[0], 0, 0.0, 2.5);
  ExpectFrame(got[1], 1, 4.0, 2.5);
  ExpectFrame(got[2], 2, 5.0, 2.5);
}

TEST(MotionSeries, AddAfterFinishFails) {
  MotionSeries s = Make();
  ASSERT_TRUE(s.Add(0.0).ok());
  s.Finish();
  EXPECT_EQ(s.Add(1.0).code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(s.TakeFinished().size(), 1u);
  EXPECT_TRUE(s.TakeFinished().empty());
}

TEST(MotionSeries, RefusesOptionsOutsideLibvmafRanges) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  auto refused = [](MotionSeriesOptions o, const char* name) {
    absl::StatusOr<MotionSeries> s = MotionSeries::Create(o);
    ASSERT_FALSE(s.ok()) << name;
    EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(s.status().message().find(name), absl::string_view::npos) << s.status();
  };
  MotionSeriesOptions o;
  o.blend_factor = 1.5;
  refused(o, "motion_blend_factor");
  o = {};
  o.blend_offset = nan;
  refused(o, "motion_blend_offset");
  o = {};
  o.max_val = -1.0;
  refused(o, "motion_max_val");
  o = {};
  o.max_val = 0.0;
  o.blend_factor = 0.0;
  o.blend_offset = 1000.0;
  EXPECT_TRUE(MotionSeries::Create(o).ok());
}

}  // namespace
}  // namespace ssimd
