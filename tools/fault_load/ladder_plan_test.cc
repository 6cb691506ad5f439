#include "tools/fault_load/ladder_plan.h"

#include <set>

#include "gtest/gtest.h"

namespace ssimd::fault_load {
namespace {

LadderLimits Limits() {
  LadderLimits limits;
  limits.sets = {{1200, 3}, {300, 2}, {16, 2}, {24, 5}};
  limits.long_set = 0;
  limits.url_set = 2;
  limits.bombs = 3;
  limits.frames = 12;
  limits.server_idle_timeout = absl::Seconds(3);
  limits.idle_margin = absl::Seconds(4);
  limits.url_fetch_time = absl::Milliseconds(300);
  return limits;
}

// Renditions are distinct, of the set, at least one; the frames asked for lie in the files.
void ExpectWellFormed(const LadderPlan& plan, const LadderLimits& limits) {
  ASSERT_GE(plan.set, 0);
  ASSERT_LT(plan.set, static_cast<int>(limits.sets.size()));
  const LadderSetShape& set = limits.sets[plan.set];
  ASSERT_FALSE(plan.renditions.empty());
  std::set<int> seen(plan.renditions.begin(), plan.renditions.end());
  EXPECT_EQ(seen.size(), plan.renditions.size());
  EXPECT_GE(*seen.begin(), 0);
  EXPECT_LT(*seen.rbegin(), set.renditions);
  EXPECT_LT(plan.start, static_cast<uint64_t>(set.frames));
  EXPECT_LE(plan.start + plan.frame_count, static_cast<uint64_t>(set.frames));
  EXPECT_GE(plan.FramesPerRendition(set.frames), 1u);
  EXPECT_EQ(plan.FrameResults(set.frames),
            plan.FramesPerRendition(set.frames) * plan.renditions.size());
}

TEST(LadderPlanTest, FramesPerRendition) {
  LadderPlan plan;
  plan.renditions = {0, 2};
  plan.start = 10;
  plan.frame_count = 0;  // to the end
  EXPECT_EQ(plan.FramesPerRendition(16), 6u);
  EXPECT_EQ(plan.FrameResults(16), 12u);
  plan.frame_count = 4;
  EXPECT_EQ(plan.FramesPerRendition(16), 4u);
  plan.frame_count = 0;
  plan.start = 16;
  EXPECT_EQ(plan.FramesPerRendition(16), 0u);
}

TEST(LadderPlanTest, HealthyLaddersVaryRenditionsOrderAndFrames) {
  const LadderLimits limits = Limits();
  std::mt19937_64 rng(1);
  std::set<std::vector<int>> orders;
  bool to_the_end = false;
  bool counted = false;
  for (int i = 0; i < 500; ++i) {
    const LadderPlan plan = DrawLadderPlan(LadderFault::kNone, limits, rng);
    ExpectWellFormed(plan, limits);
    EXPECT_EQ(plan.cancel_point, CancelPoint::kNone);
    EXPECT_EQ(plan.deadline, limits.healthy_deadline);
    if (plan.set == 3) orders.insert(plan.renditions);
    (plan.frame_count == 0 ? to_the_end : counted) = true;
  }
  EXPECT_GT(orders.size(), 20u);  // subsets in many orders
  EXPECT_TRUE(to_the_end);
  EXPECT_TRUE(counted);
}

TEST(LadderPlanTest, CancelsLandAtEveryPointWithinTheResults) {
  const LadderLimits limits = Limits();
  std::mt19937_64 rng(2);
  std::set<CancelPoint> points;
  for (int i = 0; i < 1000; ++i) {
    const LadderPlan plan = DrawLadderPlan(LadderFault::kCancel, limits, rng);
    ExpectWellFormed(plan, limits);
    points.insert(plan.cancel_point);
    const int64_t results = plan.FrameResults(limits.sets[plan.set].frames);
    const int renditions = static_cast<int>(plan.renditions.size());
    switch (plan.cancel_point) {
      case CancelPoint::kBeforeFirstResult:
        EXPECT_EQ(plan.cancel_after, 0);
        EXPECT_LE(plan.cancel_delay, absl::Milliseconds(20));
        break;
      case CancelPoint::kMidLadder:
      case CancelPoint::kLastRounds:
        EXPECT_GE(plan.cancel_after, 1);
        EXPECT_LE(plan.cancel_after, std::max<int64_t>(1, results - 1));
        break;
      case CancelPoint::kAmongSummaries:
        EXPECT_GT(plan.cancel_after, results);
        EXPECT_LE(plan.cancel_after, results + renditions);
        break;
      case CancelPoint::kNone:
        ADD_FAILURE() << "a cancel without a point";
    }
    if (plan.cancel_point == CancelPoint::kLastRounds) {
      EXPECT_GE(plan.cancel_after, results - 2 * renditions);
    }
  }
  EXPECT_EQ(points.size(), static_cast<size_t>(kCancelPoints));
}

TEST(LadderPlanTest, FaultsThatNeedTheLongLadderGetIt) {
  const LadderLimits limits = Limits();
  std::mt19937_64 rng(3);
  for (int i = 0; i < 200; ++i) {
    const LadderPlan deadline = DrawLadderPlan(LadderFault::kDeadline, limits, rng);
    EXPECT_EQ(deadline.set, limits.long_set);
    EXPECT_EQ(deadline.renditions.size(), 3u);
    EXPECT_GE(deadline.deadline, absl::Milliseconds(1));
    EXPECT_LE(deadline.deadline, absl::Milliseconds(150));

    const LadderPlan vanish = DrawLadderPlan(LadderFault::kVanish, limits, rng);
    EXPECT_EQ(vanish.set, limits.long_set);
    ExpectWellFormed(vanish, limits);
    EXPECT_LT(vanish.vanish_after,
              static_cast<int>(vanish.FrameResults(limits.sets[vanish.set].frames)));

    // Every frame of the long ladder: more results than flow control lets through unread.
    const LadderPlan stalled = DrawLadderPlan(LadderFault::kStalledReader, limits, rng);
    EXPECT_EQ(stalled.set, limits.long_set);
    EXPECT_EQ(stalled.frame_count, 0u);
    EXPECT_EQ(stalled.FrameResults(1200), 3600u);
    EXPECT_EQ(stalled.stall, absl::Seconds(7));
    EXPECT_GT(stalled.deadline, stalled.stall);
    EXPECT_LE(stalled.stop_reading_after, 20);
  }
}

TEST(LadderPlanTest, BombsAndSlowUrls) {
  const LadderLimits limits = Limits();
  std::mt19937_64 rng(4);
  std::set<int> bombs;
  std::set<bool> via;
  int cancelled = 0;
  for (int i = 0; i < 200; ++i) {
    const LadderPlan bomb = DrawLadderPlan(LadderFault::kDecodeBomb, limits, rng);
    bombs.insert(bomb.bomb);
    via.insert(bomb.bomb_via_ladder);
    EXPECT_EQ(bomb.deadline, limits.bomb_deadline);

    const LadderPlan url = DrawLadderPlan(LadderFault::kSlowUrl, limits, rng);
    EXPECT_TRUE(url.urls);
    EXPECT_EQ(url.set, limits.url_set);
    if (url.cancel_at > absl::ZeroDuration()) {
      ++cancelled;
      // While the server is still fetching the renditions one after another.
      EXPECT_LE(url.cancel_at, limits.url_fetch_time * 2);
    }
  }
  EXPECT_EQ(bombs, (std::set<int>{0, 1, 2}));
  EXPECT_EQ(via.size(), 2u);
  EXPECT_GT(cancelled, 50);
  EXPECT_LT(cancelled, 150);
}

TEST(LadderPlanTest, AvailabilityFollowsTheLimits) {
  LadderLimits limits = Limits();
  for (LadderFault f : {LadderFault::kNone, LadderFault::kCancel, LadderFault::kDeadline,
                        LadderFault::kVanish, LadderFault::kStalledReader,
                        LadderFault::kDecodeBomb, LadderFault::kSlowUrl}) {
    EXPECT_TRUE(LadderFaultAvailable(f, limits));
  }
  limits.url_set = -1;
  EXPECT_FALSE(LadderFaultAvailable(LadderFault::kSlowUrl, limits));
  limits.bombs = 0;
  EXPECT_FALSE(LadderFaultAvailable(LadderFault::kDecodeBomb, limits));
  limits.server_idle_timeout = absl::ZeroDuration();
  EXPECT_FALSE(LadderFaultAvailable(LadderFault::kStalledReader, limits));
  limits.sets.clear();
  EXPECT_FALSE(LadderFaultAvailable(LadderFault::kNone, limits));
}

}  // namespace
}  // namespace ssimd::fault_load
