#include "tools/fault_load/load_report.h"

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace ssimd::fault_load {
namespace {

StreamOutcome OkOutcome(int frames) {
  StreamOutcome o;
  o.frames_sent = frames;
  o.code = grpc::StatusCode::OK;
  return o;
}

TEST(LoadReportTest, ACleanRunPasses) {
  LoadReport r;
  StreamPlan plan;
  Verdict v;
  v.frames_verified = 10;
  r.Add(plan, OkOutcome(10), v);
  std::string why;
  EXPECT_TRUE(r.Passed(&why)) << why;
  EXPECT_EQ(r.kinds[0].ok, 1);
  EXPECT_NE(SummaryLine(r).find("PASS"), std::string::npos);
  const nlohmann::json json = nlohmann::json::parse(ToJson(r));
  EXPECT_EQ(json["passed"], true);
  EXPECT_EQ(json["frames"]["verified"], 10);
  EXPECT_EQ(json["failures"], "");
}

TEST(LoadReportTest, NothingVerifiedFails) {
  LoadReport r;
  std::string why;
  EXPECT_FALSE(r.Passed(&why));
  EXPECT_NE(why.find("no frame"), std::string::npos);
}

TEST(LoadReportTest, EveryKindOfFailureFails) {
  StreamPlan plan;
  Verdict good;
  good.frames_verified = 1;
  struct Case {
    const char* name;
    Verdict verdict;
  };
  Verdict lost = good;
  lost.frames_lost = 1;
  lost.problem = "lost";
  Verdict misordered = good;
  misordered.frames_misordered = 1;
  misordered.problem = "misordered";
  Verdict unexpected = good;
  unexpected.status_expected = false;
  unexpected.problem = "status";
  Verdict protocol = good;
  protocol.problem = "a response that was neither";
  for (const Case& c : {Case{"lost", lost}, Case{"misordered", misordered},
                        Case{"unexpected", unexpected}, Case{"protocol", protocol}}) {
    LoadReport r;
    r.Add(plan, OkOutcome(1), c.verdict);
    EXPECT_FALSE(r.Passed(nullptr)) << c.name;
    EXPECT_EQ(r.problems.size(), 1u) << c.name;
  }
}

TEST(LoadReportTest, MemoryGrowthIsJudgedOnlyWithALimit) {
  LoadReport r;
  Verdict v;
  v.frames_verified = 1;
  r.Add(StreamPlan(), OkOutcome(1), v);
  r.server_pid = 42;
  r.rss.measured = true;
  r.rss.growth_pct = 7.5;
  EXPECT_TRUE(r.Passed(nullptr));  // report only
  r.max_rss_growth_pct = 5;
  std::string why;
  EXPECT_FALSE(r.Passed(&why));
  EXPECT_NE(why.find("7.5%"), std::string::npos);
  r.server_alive_at_end = false;
  r.max_rss_growth_pct = 0;
  EXPECT_FALSE(r.Passed(&why));
  EXPECT_NE(why.find("died"), std::string::npos);
}

TEST(LoadReportTest, ShutdownNeedsTheServerToExitInTime) {
  LoadReport r;
  Verdict v;
  v.frames_verified = 1;
  r.Add(StreamPlan(), OkOutcome(1), v);
  r.shutdown_test = true;
  r.grace_seconds = 10;
  r.server_exit_after_sigterm_seconds = -1;
  EXPECT_FALSE(r.Passed(nullptr));
  r.server_exit_after_sigterm_seconds = 1.5;
  r.last_stream_after_sigterm_seconds = 1.2;
  EXPECT_FALSE(r.Passed(nullptr));  // nothing was in flight: the grace period went untested
  r.streams_finished_in_grace = 3;
  EXPECT_TRUE(r.Passed(nullptr));
  r.last_stream_after_sigterm_seconds = 11;
  EXPECT_FALSE(r.Passed(nullptr));
}

}  // namespace
}  // namespace ssimd::fault_load

namespace ssimd::fault_load {
namespace {

TEST(LoadReportTest, LadderEndingsAreCountedPerKindAndTag) {
  LoadReport r;
  StreamPlan plan;
  plan.kind = StreamKind::kDecodeBomb;
  Verdict v;
  v.frames_verified = 1;
  v.tag = "refused_resource_exhausted h264_8192x8192";
  StreamOutcome refused;
  refused.code = grpc::StatusCode::RESOURCE_EXHAUSTED;
  r.Add(plan, refused, v);
  r.Add(plan, refused, v);
  plan.kind = StreamKind::kLadderVanish;
  v.tag = "mid_ladder";
  r.Add(plan, StreamOutcome(), v);  // a vanished child leaves status OK: not an "ok" ending
  std::string why;
  EXPECT_TRUE(r.Passed(&why)) << why;
  const nlohmann::json json = nlohmann::json::parse(ToJson(r));
  EXPECT_EQ(json["kinds"]["decode_bomb"]["endings"]["refused_resource_exhausted h264_8192x8192"], 2);
  EXPECT_EQ(json["kinds"]["ladder_vanish"]["ok"], 0);
  EXPECT_EQ(json["kinds"]["ladder_vanish"]["expected_errors"], 1);
  EXPECT_FALSE(json["kinds"].contains("ladder_slow_url"));  // not in the mix
}

TEST(LoadReportTest, PeakRssOverTheBudgetFails) {
  LoadReport r;
  Verdict v;
  v.frames_verified = 1;
  r.Add(StreamPlan(), OkOutcome(1), v);
  r.server_pid = 42;
  r.rss_budget_bytes = int64_t{100} << 20;
  r.idle_rss_kb = 50 * 1024;
  r.peak_rss_kb = 150 * 1024;
  std::string why;
  EXPECT_TRUE(r.Passed(&why)) << why;  // exactly at rest + budget
  r.peak_rss_kb += 1;
  EXPECT_FALSE(r.Passed(&why));
  EXPECT_NE(why.find("over the budget"), std::string::npos);
  const nlohmann::json json = nlohmann::json::parse(ToJson(r));
  EXPECT_EQ(json["server"]["rss_within_budget"], false);
  EXPECT_EQ(json["server"]["deaths"], 0);
  r.peak_rss_kb = 0;  // never measured
  EXPECT_FALSE(r.Passed(&why));
}

TEST(LoadReportTest, UrlFetchesAfterACancelFail) {
  LoadReport r;
  Verdict v;
  v.frames_verified = 1;
  v.url_fetches_after_cancel = 2;
  v.problem = "went on fetching";
  StreamPlan plan;
  plan.kind = StreamKind::kLadderSlowUrl;
  r.Add(plan, OkOutcome(1), v);
  std::string why;
  EXPECT_FALSE(r.Passed(&why));
  EXPECT_NE(why.find("2 URL fetches after their cancel"), std::string::npos);
}

}  // namespace
}  // namespace ssimd::fault_load
