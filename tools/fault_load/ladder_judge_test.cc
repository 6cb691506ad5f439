#include "tools/fault_load/ladder_judge.h"

#include <algorithm>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace ssimd::fault_load {
namespace {

using ::testing::HasSubstr;

constexpr int kFrames = 20;

// A ladder of two renditions whose frame k of rendition r scores 0.5 + r/10 + (k % 6)/100.
LadderMedia Media() {
  LadderMedia media;
  LadderSet set;
  set.name = "test";
  set.shape.name = "test";
  set.shape.geometry = {64, 36, 8, ChromaFormat::k420};
  set.frames = kFrames;
  set.cycle = 6;
  for (int r = 0; r < 2; ++r) {
    LadderRendition rung;
    rung.name = r == 0 ? "r1" : "r2";
    rung.shape = set.shape;
    set.renditions.push_back(rung);
    std::vector<FrameScores> expected;
    for (int k = 0; k < set.cycle; ++k) {
      expected.push_back({{"float_ssim", 0.5 + r / 10.0 + k / 100.0}, {"ssim", 0.25 + k / 64.0}});
    }
    set.expected.push_back(expected);
  }
  media.sets.push_back(set);
  media.long_set = 0;
  media.bombs.push_back({"fault_load/bomb/y4m_20000x20000.y4m", "y4m 20000x20000", 20000, 20000});
  return media;
}

StreamPlan Plan(LadderFault fault, StreamKind kind) {
  StreamPlan plan;
  plan.kind = kind;
  plan.ladder.fault = fault;
  plan.ladder.set = 0;
  plan.ladder.renditions = {1, 0};  // not in the set's order: results must follow the request's
  plan.ladder.start = 3;
  plan.ladder.frame_count = 5;
  return plan;
}

v1::ScoreLadderResponse Frame(const LadderMedia& media, const LadderPlan& plan, int rung,
                              uint64_t index) {
  v1::ScoreLadderResponse response;
  const LadderSet& set = media.sets[plan.set];
  response.mutable_frame()->set_rendition(set.renditions[rung].name);
  v1::FrameResult* result = response.mutable_frame()->mutable_result();
  result->set_index(index);
  result->set_backend("cpu");
  for (const auto& [metric, value] : set.Expected(rung, plan.start + index)) {
    (*result->mutable_scores())[metric] = value;
  }
  return response;
}

// What a correct server sends: the frames round by round, each rendition's summary, the ladder's.
std::vector<v1::ScoreLadderResponse> Correct(const LadderMedia& media, const LadderPlan& plan) {
  std::vector<v1::ScoreLadderResponse> out;
  const uint64_t n = plan.FramesPerRendition(media.sets[plan.set].frames);
  for (uint64_t i = 0; i < n; ++i) {
    for (int rung : plan.renditions) out.push_back(Frame(media, plan, rung, i));
  }
  for (int rung : plan.renditions) {
    v1::ScoreLadderResponse summary;
    summary.mutable_rendition_summary()->set_rendition(media.sets[plan.set].renditions[rung].name);
    summary.mutable_rendition_summary()->mutable_summary()->set_frames(n);
    out.push_back(summary);
  }
  v1::ScoreLadderResponse ladder;
  ladder.mutable_ladder_summary()->set_renditions(plan.renditions.size());
  ladder.mutable_ladder_summary()->set_source_frames(n);
  ladder.mutable_ladder_summary()->set_elapsed_seconds(0.5);
  out.push_back(ladder);
  return out;
}

LadderOutcome Outcome(std::vector<v1::ScoreLadderResponse> responses,
                      grpc::StatusCode code = grpc::StatusCode::OK, std::string message = "") {
  LadderOutcome out;
  out.responses = std::move(responses);
  out.call.code = code;
  out.call.message = std::move(message);
  out.call.started = absl::UnixEpoch();
  out.call.finished = absl::UnixEpoch() + absl::Seconds(1);
  return out;
}

class LadderJudgeTest : public ::testing::Test {
 protected:
  Verdict Judge(const StreamPlan& plan, const LadderOutcome& outcome,
                JudgeContext context = JudgeContext()) {
    return JudgeLadder(plan, outcome, media_, options_, context);
  }
  LadderMedia media_ = Media();
  LadderJudgeOptions options_{absl::Seconds(3), true};
};

TEST_F(LadderJudgeTest, ACorrectLadderPasses) {
  const StreamPlan plan = Plan(LadderFault::kNone, StreamKind::kLadder);
  const Verdict v = Judge(plan, Outcome(Correct(media_, plan.ladder)));
  EXPECT_TRUE(v.status_expected);
  EXPECT_EQ(v.problem, "");
  EXPECT_EQ(v.frames_verified, 10);
  EXPECT_EQ(v.frames_lost + v.frames_wrong + v.frames_misordered, 0);
}

TEST_F(LadderJudgeTest, AWrongScoreIsCounted) {
  const StreamPlan plan = Plan(LadderFault::kNone, StreamKind::kLadder);
  std::vector<v1::ScoreLadderResponse> responses = Correct(media_, plan.ladder);
  (*responses[3].mutable_frame()->mutable_result()->mutable_scores())["ssim"] += 1e-12;
  const Verdict v = Judge(plan, Outcome(responses));
  EXPECT_EQ(v.frames_wrong, 1);
  EXPECT_EQ(v.frames_verified, 9);
  EXPECT_THAT(v.problem, HasSubstr("ssim"));
}

// Another rendition's score, or the score of another frame, at the right place is wrong too.
TEST_F(LadderJudgeTest, ResultsOfAnotherRenditionOrFrameAreWrong) {
  const StreamPlan plan = Plan(LadderFault::kNone, StreamKind::kLadder);
  std::vector<v1::ScoreLadderResponse> responses = Correct(media_, plan.ladder);
  // Frame 0 of r2 carries r1's scores.
  *responses[0].mutable_frame()->mutable_result()->mutable_scores() =
      responses[1].frame().result().scores();
  const Verdict v = Judge(plan, Outcome(responses));
  EXPECT_EQ(v.frames_wrong, 1);
}

TEST_F(LadderJudgeTest, SwappedFramesAreMisordered) {
  const StreamPlan plan = Plan(LadderFault::kNone, StreamKind::kLadder);
  std::vector<v1::ScoreLadderResponse> responses = Correct(media_, plan.ladder);
  std::swap(responses[0], responses[2]);  // r2's frames 0 and 1
  const Verdict v = Judge(plan, Outcome(responses));
  EXPECT_EQ(v.frames_misordered, 2);
  EXPECT_THAT(v.problem, HasSubstr("carries index"));
}

TEST_F(LadderJudgeTest, AFrameAfterItsSummaryIsMisordered) {
  const StreamPlan plan = Plan(LadderFault::kNone, StreamKind::kLadder);
  std::vector<v1::ScoreLadderResponse> responses = Correct(media_, plan.ladder);
  // r1's last frame after r1's summary.
  std::rotate(responses.begin() + 9, responses.begin() + 10, responses.begin() + 12);
  const Verdict v = Judge(plan, Outcome(responses));
  EXPECT_GE(v.frames_misordered + (v.problem.empty() ? 0 : 1), 1);
  EXPECT_FALSE(v.problem.empty());
}

TEST_F(LadderJudgeTest, OkWithoutEveryResultLosesFrames) {
  const StreamPlan plan = Plan(LadderFault::kNone, StreamKind::kLadder);
  std::vector<v1::ScoreLadderResponse> responses = Correct(media_, plan.ladder);
  responses.erase(responses.begin() + 8, responses.begin() + 10);  // the last round
  const Verdict v = Judge(plan, Outcome(responses));
  EXPECT_GT(v.frames_lost + (v.problem.empty() ? 0 : 1), 0);
  EXPECT_FALSE(v.problem.empty());
}

TEST_F(LadderJudgeTest, AHealthyLadderThatFailsIsUnexpected) {
  const StreamPlan plan = Plan(LadderFault::kNone, StreamKind::kLadder);
  std::vector<v1::ScoreLadderResponse> responses = Correct(media_, plan.ladder);
  responses.resize(4);
  const Verdict v = Judge(plan, Outcome(responses, grpc::StatusCode::INTERNAL, "boom"));
  EXPECT_FALSE(v.status_expected);
  EXPECT_EQ(v.frames_lost, 6);
  EXPECT_THAT(v.problem, HasSubstr("INTERNAL: boom"));
}

// After SIGTERM a server may refuse a new call outright.
TEST_F(LadderJudgeTest, RefusedInShutdownIsExpected) {
  const StreamPlan plan = Plan(LadderFault::kNone, StreamKind::kLadder);
  JudgeContext context;
  context.shutdown_started = true;
  context.shutdown_at = absl::UnixEpoch();
  const Verdict v = Judge(plan, Outcome({}, grpc::StatusCode::UNAVAILABLE), context);
  EXPECT_TRUE(v.status_expected);
}

TEST_F(LadderJudgeTest, CancelsEndCancelledOrOkWhenDoneFirst) {
  StreamPlan plan = Plan(LadderFault::kCancel, StreamKind::kLadderCancel);
  plan.ladder.cancel_point = CancelPoint::kMidLadder;
  std::vector<v1::ScoreLadderResponse> all = Correct(media_, plan.ladder);
  std::vector<v1::ScoreLadderResponse> part(all.begin(), all.begin() + 5);
  Verdict v = Judge(plan, Outcome(part, grpc::StatusCode::CANCELLED));
  EXPECT_TRUE(v.status_expected);
  EXPECT_EQ(v.tag, "mid_ladder");
  EXPECT_EQ(v.frames_verified, 5);
  EXPECT_EQ(v.frames_lost, 0);

  v = Judge(plan, Outcome(all));
  EXPECT_TRUE(v.status_expected);
  EXPECT_EQ(v.tag, "finished_first");

  v = Judge(plan, Outcome(part, grpc::StatusCode::INTERNAL));
  EXPECT_FALSE(v.status_expected);
  // Cancelled, but what came back before must still be right.
  part[2].mutable_frame()->mutable_result()->set_index(7);
  v = Judge(plan, Outcome(part, grpc::StatusCode::CANCELLED));
  EXPECT_EQ(v.frames_misordered, 1);
}

TEST_F(LadderJudgeTest, DeadlinesEndDeadlineExceeded) {
  const StreamPlan plan = Plan(LadderFault::kDeadline, StreamKind::kLadderDeadline);
  Verdict v = Judge(plan, Outcome({}, grpc::StatusCode::DEADLINE_EXCEEDED));
  EXPECT_TRUE(v.status_expected);
  EXPECT_EQ(v.tag, "expired");
  v = Judge(plan, Outcome({}, grpc::StatusCode::CANCELLED));
  EXPECT_FALSE(v.status_expected);
}

TEST_F(LadderJudgeTest, StalledReaderMustBeEndedByTheServer) {
  StreamPlan plan = Plan(LadderFault::kStalledReader, StreamKind::kLadderStalledReader);
  plan.ladder.stall = absl::Seconds(7);  // idle timeout 3 s + margin 4 s
  std::vector<v1::ScoreLadderResponse> all = Correct(media_, plan.ladder);
  std::vector<v1::ScoreLadderResponse> part(all.begin(), all.begin() + 3);
  LadderOutcome ended = Outcome(part, grpc::StatusCode::CANCELLED);
  ended.stopped_reading_at = ended.call.started + absl::Milliseconds(100);
  Verdict v = Judge(plan, ended);
  EXPECT_TRUE(v.status_expected);
  EXPECT_EQ(v.tag, "ended_by_server");

  // Finished only after the client read again: the server waited on it.
  all.back().mutable_ladder_summary()->set_elapsed_seconds(7.2);
  LadderOutcome kept = Outcome(all);
  kept.stopped_reading_at = kept.call.started + absl::Milliseconds(100);
  v = Judge(plan, kept);
  EXPECT_FALSE(v.status_expected);
  EXPECT_EQ(v.tag, "kept_open");

  // Finished before the idle timeout: every result fitted in the buffers.
  all.back().mutable_ladder_summary()->set_elapsed_seconds(0.3);
  LadderOutcome quick = Outcome(all);
  quick.stopped_reading_at = quick.call.started + absl::Milliseconds(100);
  v = Judge(plan, quick);
  EXPECT_TRUE(v.status_expected);
  EXPECT_EQ(v.tag, "not_blocked");
}

TEST_F(LadderJudgeTest, DecodeBombsMustBeRefusedNamingTheirSize) {
  StreamPlan plan = Plan(LadderFault::kDecodeBomb, StreamKind::kDecodeBomb);
  plan.ladder.bomb = 0;
  Verdict v = Judge(plan, Outcome({}, grpc::StatusCode::RESOURCE_EXHAUSTED,
                                  "source_path: y4m 20000x20000 = 400000000 pixels a picture, over "
                                  "this server's limit of 35651584 (--max_picture_pixels)"));
  EXPECT_TRUE(v.status_expected);
  EXPECT_EQ(v.problem, "");
  EXPECT_EQ(v.tag, "refused_resource_exhausted y4m_20000x20000");

  // An older server's refusal.
  v = Judge(plan, Outcome({}, grpc::StatusCode::INVALID_ARGUMENT,
                          "width x height must be at most 268435456 pixels (16384x16384), got "
                          "20000x20000 = 400000000 pixels"));
  EXPECT_TRUE(v.status_expected);
  EXPECT_EQ(v.tag, "refused_invalid_argument y4m_20000x20000");

  // Refused, but the message names only the limit.
  v = Judge(plan, Outcome({}, grpc::StatusCode::RESOURCE_EXHAUSTED, "over 8192x4352"));
  EXPECT_FALSE(v.status_expected);
  EXPECT_THAT(v.problem, HasSubstr("without naming the size"));

  v = Judge(plan, Outcome({}));
  EXPECT_FALSE(v.status_expected);
  EXPECT_EQ(v.tag, "served");
  v = Judge(plan, Outcome({}, grpc::StatusCode::INTERNAL, "out of memory"));
  EXPECT_FALSE(v.status_expected);
  EXPECT_EQ(v.tag, "other");
}

TEST_F(LadderJudgeTest, AVanishingClientMustVanish) {
  StreamPlan plan = Plan(LadderFault::kVanish, StreamKind::kLadderVanish);
  plan.ladder.vanish_after = 4;
  LadderOutcome outcome = Outcome({});
  outcome.call.vanished = true;
  Verdict v = Judge(plan, outcome);
  EXPECT_TRUE(v.status_expected);
  EXPECT_EQ(v.tag, "mid_ladder");
  outcome.call.vanished = false;
  outcome.call.child_error = "the child exited with status 3";
  v = Judge(plan, outcome);
  EXPECT_FALSE(v.status_expected);
  EXPECT_THAT(v.problem, HasSubstr("status 3"));
}

TEST_F(LadderJudgeTest, FetchingAfterACancelIsAProblem) {
  StreamPlan plan = Plan(LadderFault::kSlowUrl, StreamKind::kLadderSlowUrl);
  plan.ladder.urls = true;
  plan.ladder.cancel_at = absl::Milliseconds(50);
  LadderOutcome outcome = Outcome({}, grpc::StatusCode::CANCELLED);
  Verdict v = Judge(plan, outcome);
  EXPECT_TRUE(v.status_expected);
  EXPECT_EQ(v.problem, "");
  EXPECT_EQ(v.tag, "cancelled_mid_fetch");
  outcome.url_fetches_after_cancel = 1;
  outcome.url_detail = "1 fetch(es): /fault_load/url/u2.y4m started 1500 ms after the cancel";
  v = Judge(plan, outcome);
  EXPECT_EQ(v.url_fetches_after_cancel, 1);
  EXPECT_THAT(v.problem, HasSubstr("went on fetching"));
}

}  // namespace
}  // namespace ssimd::fault_load
