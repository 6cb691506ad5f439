#include "client/ladder_spread.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace ssimd {
namespace {

using ::testing::HasSubstr;

TEST(SplitLadderTest, OneCallPerRenditionKeepingTheRest) {
  v1::ScoreLadderRequest request;
  request.set_source_path("src.y4m");
  request.set_frame_count(7);
  request.mutable_config()->set_title_id("title");
  request.add_renditions()->set_name("a");
  request.add_renditions()->set_name("b");
  const std::vector<v1::ScoreLadderRequest> calls = SplitLadder(request);
  ASSERT_EQ(calls.size(), 2u);
  for (size_t i = 0; i < calls.size(); ++i) {
    ASSERT_EQ(calls[i].renditions_size(), 1);
    EXPECT_EQ(calls[i].renditions(0).name(), request.renditions(static_cast<int>(i)).name());
    EXPECT_EQ(calls[i].source_path(), "src.y4m");
    EXPECT_EQ(calls[i].frame_count(), 7u);
    EXPECT_EQ(calls[i].config().title_id(), "title");
  }
}

LadderReport Part(const std::string& name, uint64_t source_frames, double seconds) {
  LadderReport part;
  part.renditions[name].summary.set_frames(source_frames);
  part.ladder.set_renditions(1);
  part.ladder.set_source_frames(source_frames);
  part.ladder.set_elapsed_seconds(seconds);
  return part;
}

TEST(MergeLadderReportsTest, EveryRenditionOnceAndTheLadderCounts) {
  auto merged = MergeLadderReports({Part("a", 24, 1.5), Part("b", 20, 2.5), Part("c", 24, 0.5)});
  ASSERT_TRUE(merged.ok()) << merged.status();
  EXPECT_EQ(merged->renditions.size(), 3u);
  EXPECT_EQ(merged->renditions.at("b").summary.frames(), 20u);
  EXPECT_EQ(merged->ladder.renditions(), 3u);
  EXPECT_EQ(merged->ladder.source_frames(), 24u);
  EXPECT_EQ(merged->ladder.elapsed_seconds(), 2.5);
}

TEST(MergeLadderReportsTest, ARenditionTwiceIsAnError) {
  auto merged = MergeLadderReports({Part("a", 1, 1), Part("a", 1, 1)});
  EXPECT_EQ(merged.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(merged.status().message(), HasSubstr("\"a\""));
}

}  // namespace
}  // namespace ssimd
