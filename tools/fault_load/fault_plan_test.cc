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

TEST_F(JudgeTest, ACompressionBombMustBeRefusedUnimplemented) {
  plan_.kind = StreamKind::kBomb;
  StreamOutcome refused = Answered(0, 0, grpc::StatusCode::UNIMPLEMENTED);
  refused.message = "Compression algorithm 'gzip' is disabled.";
  EXPECT_TRUE(Judge(plan_, refused, variant_, normal_).status_expected);
  // Accepted (and decompressed) instead: a failure, whatever came after.
  for (grpc::StatusCode code : {grpc::StatusCode::RESOURCE_EXHAUSTED,
                                grpc::StatusCode::INVALID_ARGUMENT, grpc::StatusCode::OK}) {
    const Verdict v = Judge(plan_, Answered(0, 0, code), variant_, normal_);
    EXPECT_FALSE(v.status_expected) << code;
    EXPECT_NE(v.problem, "");
  }
}

TEST_F(JudgeTest, AnIdleStreamMustBeEndedNamingTheAwaitedFrame) {
  plan_.kind = StreamKind::kIdle;
  StreamOutcome ended = Answered(2, 2, grpc::StatusCode::DEADLINE_EXCEEDED);
  ended.message = "the stream was idle for 2s, waiting for frame 2 (--stream_idle_timeout=2s)";
  Verdict v = Judge(plan_, ended, variant_, normal_);
  EXPECT_TRUE(v.status_expected) << v.problem;
  EXPECT_EQ(v.frames_verified, 2);
  EXPECT_EQ(v.problem, "");

  // The client's own deadline ran out first: the server never ended the stream.
  StreamOutcome client_gave_up = ended;
  client_gave_up.message = "Deadline Exceeded";
  EXPECT_FALSE(Judge(plan_, client_gave_up, variant_, normal_).status_expected);

  // The server named another frame than the one it was owed.
  StreamOutcome wrong_frame = ended;
  wrong_frame.message = "the stream was idle for 2s, waiting for frame 1 (--stream_idle_timeout=2s)";
  EXPECT_FALSE(Judge(plan_, wrong_frame, variant_, normal_).status_expected);

  // Ended as it should be, but a result of a frame it had sent never came back.
  StreamOutcome short_of_results = Answered(2, 1, grpc::StatusCode::DEADLINE_EXCEEDED);
  short_of_results.message = ended.message;
  v = Judge(plan_, short_of_results, variant_, normal_);
  EXPECT_EQ(v.frames_lost, 1);
  EXPECT_NE(v.problem, "");

  // Any other ending is unexpected.
  EXPECT_FALSE(Judge(plan_, Answered(2, 2), variant_, normal_).status_expected);
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

TEST(DrawPlanTest, HostileKindsCarryTheirLimits) {
  auto variants = MakeClipVariants(false, nullptr);
  ASSERT_TRUE(variants.ok());
  auto weights = ParseKindWeights("bomb=1,idle=1");
  ASSERT_TRUE(weights.ok());
  PlanLimits limits;
  limits.bomb_bytes = int64_t{3} << 20;
  limits.server_idle_timeout = absl::Seconds(2);
  limits.idle_margin = absl::Seconds(5);
  std::mt19937_64 rng(11);
  int bombs = 0, idles = 0;
  for (int i = 0; i < 200; ++i) {
    const StreamPlan plan = DrawPlan(*weights, limits, *variants, rng);
    if (plan.kind == StreamKind::kBomb) {
      ++bombs;
      EXPECT_EQ(plan.bomb_bytes, limits.bomb_bytes);
    } else {
      ASSERT_EQ(plan.kind, StreamKind::kIdle);
      ++idles;
      EXPECT_EQ(plan.deadline, absl::Seconds(7));  // the server's timeout comes first
      EXPECT_GE(plan.frames, 0);
      EXPECT_LE(plan.frames, 3);
    }
  }
  EXPECT_GT(bombs, 0);
  EXPECT_GT(idles, 0);
}

TEST(DrawPlanTest, HostileKindsAreOnlyDrawnWhenNamed) {
  auto weights = ParseKindWeights("healthy=8,slow_reader=2,pair=2,cancel=2,deadline=2,vanish=1");
  ASSERT_TRUE(weights.ok());
  EXPECT_EQ(weights->weight[static_cast<int>(StreamKind::kBomb)], 0);
  EXPECT_EQ(weights->weight[static_cast<int>(StreamKind::kIdle)], 0);
  auto named = ParseKindWeights("healthy=1,bomb=2,idle=3");
  ASSERT_TRUE(named.ok());
  EXPECT_EQ(named->weight[static_cast<int>(StreamKind::kBomb)], 2);
  EXPECT_EQ(named->weight[static_cast<int>(StreamKind::kIdle)], 3);
  EXPECT_STREQ(KindName(StreamKind::kBomb), "bomb");
  EXPECT_STREQ(KindName(StreamKind::kIdle), "idle");
}

TEST(DrawPlanTest, RefusesBadMixes) {
  EXPECT_FALSE(ParseKindWeights("healthy=0").ok());
  EXPECT_FALSE(ParseKindWeights("healthy=-1").ok());
  EXPECT_FALSE(ParseKindWeights("sleepy=3").ok());
  EXPECT_TRUE(ParseKindWeights("healthy=1,vanish=0").ok());
}

}  // namespace
}  // namespace ssimd::fault_load
