#include "tools/fault_load/fault_plan.h"

#include "engine/cpu/cpu_scorer.h"
#include "gtest/gtest.h"

namespace ssimd::fault_load {
namespace {

class JudgeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::unique_ptr<Scorer> cpu = MakeCpuScorer({.threads = 1});
    auto v = MakeClipVariant(0, false, cpu.get());
    ASSERT_TRUE(v.ok()) << v.status();
    variant_ = *std::move(v);
    plan_.frames = 4;
    plan_.pair_offset = 3;
  }

  // What a correct server answers for the first `n` of `sent` frames.
  StreamOutcome Answered(int sent, int n, grpc::StatusCode code = grpc::StatusCode::OK) {
    StreamOutcome o;
    o.frames_sent = sent;
    o.code = code;
    for (int i = 0; i < n; ++i) {
      v1::FrameResult r;
      r.set_index(i);
      for (const auto& [metric, value] : variant_.expected[variant_.PairFor(i, 3)]) {
        (*r.mutable_scores())[metric] = value;
      }
      o.frames.push_back(r);
    }
    if (n == sent && code == grpc::StatusCode::OK) {
      o.has_summary = true;
      o.summary.set_frames(sent);
    }
    return o;
  }

  ClipVariant variant_;
  StreamPlan plan_;
  JudgeContext normal_;
};

TEST_F(JudgeTest, ACompleteHealthyStreamIsVerified) {
  const Verdict v = Judge(plan_, Answered(4, 4), variant_, normal_);
  EXPECT_EQ(v.frames_verified, 4);
  EXPECT_TRUE(v.status_expected);
  EXPECT_EQ(v.problem, "");
}

TEST_F(JudgeTest, AMissingResultUnderOkIsLost) {
  StreamOutcome o = Answered(4, 3);
  o.has_summary = true;
  o.summary.set_frames(3);
  const Verdict v = Judge(plan_, o, variant_, normal_);
  EXPECT_EQ(v.frames_lost, 1);
  EXPECT_NE(v.problem, "");
}

TEST_F(JudgeTest, SwappedResultsAreCaught) {
  StreamOutcome o = Answered(4, 4);
  std::swap(o.frames[1], o.frames[2]);
  const Verdict v = Judge(plan_, o, variant_, normal_);
  EXPECT_EQ(v.frames_misordered, 2);
  EXPECT_EQ(v.frames_verified, 2);
}

TEST_F(JudgeTest, ScoresOfAnotherPairAreWrong) {
  StreamOutcome o = Answered(4, 4);
  *o.frames[1].mutable_scores() = o.frames[2].scores();
  const Verdict v = Judge(plan_, o, variant_, normal_);
  EXPECT_EQ(v.frames_wrong, 1);
  EXPECT_NE(v.problem.find("frame 1"), std::string::npos);
}

TEST_F(JudgeTest, AHealthyStreamThatFailsIsUnexpected) {
  const Verdict v =
      Judge(plan_, Answered(4, 1, grpc::StatusCode::DEADLINE_EXCEEDED), variant_, normal_);
  EXPECT_FALSE(v.status_expected);
  EXPECT_TRUE(v.stalled);
  EXPECT_EQ(v.frames_lost, 3);
}

TEST_F(JudgeTest, FaultsNeedTheirOwnStatus) {
  plan_.kind = StreamKind::kCancel;
  EXPECT_TRUE(Judge(plan_, Answered(4, 2, grpc::StatusCode::CANCELLED), variant_, normal_)
                  .status_expected);
  EXPECT_FALSE(Judge(plan_, Answered(4, 2, grpc::StatusCode::INTERNAL), variant_, normal_)
                   .status_expected);
  plan_.kind = StreamKind::kMalformed;
  plan_.malformation = Malformation::kShortPlane;
  EXPECT_TRUE(Judge(plan_, Answered(2, 2, grpc::StatusCode::INVALID_ARGUMENT), variant_, normal_)
                  .status_expected);
  plan_.malformation = Malformation::kSecondConfig;
  EXPECT_FALSE(Judge(plan_, Answered(2, 2, grpc::StatusCode::INVALID_ARGUMENT), variant_, normal_)
                   .status_expected);
  plan_.kind = StreamKind::kOversized;
  EXPECT_TRUE(Judge(plan_, Answered(1, 1, grpc::StatusCode::RESOURCE_EXHAUSTED), variant_,
                    normal_)
                  .status_expected);
}

TEST_F(JudgeTest, AfterSigtermOnlyStreamsWithoutResultsMayBeRefused) {
  JudgeContext shutdown;
  shutdown.shutdown_started = true;
  shutdown.shutdown_at = absl::Now();
  StreamOutcome refused = Answered(4, 0, grpc::StatusCode::UNAVAILABLE);
  refused.started = refused.finished = shutdown.shutdown_at + absl::Milliseconds(5);
  EXPECT_TRUE(Judge(plan_, refused, variant_, shutdown).status_expected);
  // Accepted and cut before the end: not allowed within the grace period.
  StreamOutcome cut = Answered(4, 2, grpc::StatusCode::CANCELLED);
  cut.started = shutdown.shutdown_at - absl::Seconds(1);
  cut.finished = shutdown.shutdown_at + absl::Seconds(1);
  EXPECT_FALSE(Judge(plan_, cut, variant_, shutdown).status_expected);
  // Without a shutdown, UNAVAILABLE is a failure.
  EXPECT_FALSE(Judge(plan_, refused, variant_, normal_).status_expected);
}

TEST(DrawPlanTest, FollowsTheWeights) {
  auto variants = MakeClipVariants(false, nullptr);
  ASSERT_TRUE(variants.ok());
  auto weights = ParseKindWeights("malformed=1,oversized=1");
  ASSERT_TRUE(weights.ok());
  PlanLimits limits;
  limits.oversized_enabled = false;
  std::mt19937_64 rng(7);
  for (int i = 0; i < 200; ++i) {
    const StreamPlan plan = DrawPlan(*weights, limits, *variants, rng);
    ASSERT_EQ(plan.kind, StreamKind::kMalformed);
    ASSERT_LT(plan.fault_frame, plan.frames);
    if (plan.malformation == Malformation::kSampleAbovePeak) {
      const int depth = (*variants)[plan.variant].geometry.bit_depth;
      EXPECT_TRUE(depth == 10 || depth == 12);
    }
  }
}

TEST(DrawPlanTest, RefusesBadMixes) {
  EXPECT_FALSE(ParseKindWeights("healthy=0").ok());
  EXPECT_FALSE(ParseKindWeights("healthy=-1").ok());
  EXPECT_FALSE(ParseKindWeights("sleepy=3").ok());
  EXPECT_TRUE(ParseKindWeights("healthy=1,vanish=0").ok());
}

}  // namespace
}  // namespace ssimd::fault_load
