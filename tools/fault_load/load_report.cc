#include "tools/fault_load/load_report.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "json/json_text.h"

namespace ssimd::fault_load {
namespace {

constexpr size_t kMaxProblems = 20;

// Six significant digits: seconds and percentages do not carry more.
nlohmann::ordered_json JsonNumber(double x) { return JsonRounded(x, 6); }

}  // namespace

void LoadReport::AddProblem(const std::string& problem) {
  ++streams_with_problems;
  if (problems.size() < kMaxProblems) problems.push_back(problem);
}

void LoadReport::Add(const StreamPlan& plan, const StreamOutcome& outcome,
                     const Verdict& verdict) {
  KindTotals& k = kinds[static_cast<int>(plan.kind)];
  ++k.streams;
  if (!verdict.status_expected) {
    ++k.unexpected;
  } else if (plan.kind != StreamKind::kVanish && plan.kind != StreamKind::kLadderVanish &&
             outcome.code == grpc::StatusCode::OK) {
    ++k.ok;
  } else {
    ++k.expected_errors;
    if (IsHealthy(plan.kind) && outcome.code == grpc::StatusCode::UNAVAILABLE) {
      ++refused_in_shutdown;
    }
  }
  if (!verdict.tag.empty()) ++tags[static_cast<int>(plan.kind)][verdict.tag];
  url_fetches_after_cancel += verdict.url_fetches_after_cancel;
  if (IsHealthy(plan.kind)) frames_sent += outcome.frames_sent;
  frames_verified += verdict.frames_verified;
  frames_lost += verdict.frames_lost;
  frames_misordered += verdict.frames_misordered;
  frames_wrong += verdict.frames_wrong;
  if (verdict.stalled) ++streams_stalled;
  if (!verdict.problem.empty()) {
    AddProblem(absl::StrFormat("%s stream (%s frames, %.3f s): %s", KindName(plan.kind),
                               absl::StrCat(plan.frames),
                               absl::ToDoubleSeconds(outcome.finished - outcome.started),
                               verdict.problem));
  }
}

int64_t LoadReport::streams() const {
  int64_t n = 0;
  for (const KindTotals& k : kinds) n += k.streams;
  return n;
}

int64_t LoadReport::unexpected_statuses() const {
  int64_t n = 0;
  for (const KindTotals& k : kinds) n += k.unexpected;
  return n;
}

bool LoadReport::Passed(std::string* why) const {
  std::vector<std::string> failed;
  if (frames_verified == 0) failed.push_back("no frame result was verified (no load ran?)");
  if (frames_lost > 0) failed.push_back(absl::StrCat(frames_lost, " frames lost"));
  if (frames_misordered > 0) failed.push_back(absl::StrCat(frames_misordered, " misordered"));
  if (frames_wrong > 0) failed.push_back(absl::StrCat(frames_wrong, " wrong scores"));
  if (unexpected_statuses() > 0) {
    failed.push_back(absl::StrCat(unexpected_statuses(), " streams ended with an unexpected status"));
  }
  if (streams_with_problems > 0) {
    failed.push_back(absl::StrCat(streams_with_problems, " streams with problems"));
  }
  if (health_failures > 0) failed.push_back(absl::StrCat(health_failures, " health checks failed"));
  if (metrics_watched && metrics_scrapes == 0) failed.push_back("/metrics was never scraped");
  if (metrics_scrape_failures > 0) {
    failed.push_back(absl::StrCat(metrics_scrape_failures, " /metrics scrapes failed"));
  }
  if (server_pid != 0 && !shutdown_test && !server_alive_at_end) {
    failed.push_back("the server died");
  }
  if (shutdown_test) {
    if (server_exit_after_sigterm_seconds < 0) {
      failed.push_back("the server did not exit within the grace period after SIGTERM");
    }
    if (streams_finished_in_grace == 0) {
      failed.push_back("no stream was in flight at SIGTERM, so the grace period was not tested");
    }
    if (last_stream_after_sigterm_seconds > grace_seconds) {
      failed.push_back("streams ran past the grace period");
    }
  }
  if (rss_budget_bytes > 0) {
    if (idle_rss_kb <= 0 || peak_rss_kb <= 0) {
      failed.push_back("the server's resident memory was not measured (--server_pid?)");
    } else if (!rss_within_budget()) {
      failed.push_back(absl::StrFormat(
          "peak resident memory %.1f MiB is over the budget, %.1f MiB at rest + %.1f MiB",
          peak_rss_kb / 1024.0, idle_rss_kb / 1024.0, rss_budget_bytes / 1048576.0));
    }
  }
  if (url_fetches_after_cancel > 0) {
    failed.push_back(absl::StrCat(url_fetches_after_cancel, " URL fetches after their cancel"));
  }
  if (max_rss_growth_pct > 0 && rss.measured && rss.growth_pct > max_rss_growth_pct) {
    failed.push_back(absl::StrFormat("resident memory grew %.1f%% after warm-up (limit %.1f%%)",
                                     rss.growth_pct, max_rss_growth_pct));
  }
  if (watch_gpu_memory && max_rss_growth_pct > 0 && gpu_memory.measured &&
      gpu_memory.growth_pct > max_rss_growth_pct) {
    failed.push_back(absl::StrFormat("device memory grew %.1f%% after warm-up (limit %.1f%%)",
                                     gpu_memory.growth_pct, max_rss_growth_pct));
  }
  if (why != nullptr) *why = absl::StrJoin(failed, "; ");
  return failed.empty();
}

std::string ToJson(const LoadReport& r) {
  std::string why;
  const bool passed = r.Passed(&why);
  nlohmann::ordered_json kinds = nlohmann::ordered_json::object();
  for (int i = 0; i < kStreamKinds; ++i) {
    const KindTotals& k = r.kinds[i];
    // Kinds not in the mix stay out of the report.
    if (k.streams == 0 && IsLadderKind(static_cast<StreamKind>(i))) continue;
    nlohmann::ordered_json kind = {{"streams", k.streams},
                                   {"ok", k.ok},
                                   {"expected_errors", k.expected_errors},
                                   {"unexpected", k.unexpected}};
    if (!r.tags[i].empty()) {
      nlohmann::ordered_json tags = nlohmann::ordered_json::object();
      for (const auto& [tag, n] : r.tags[i]) tags[tag] = n;
      kind["endings"] = tags;
    }
    kinds[KindName(static_cast<StreamKind>(i))] = kind;
  }
  nlohmann::ordered_json out = {
      {"passed", passed},
      {"failures", why},
      {"duration_seconds", JsonNumber(r.duration_seconds)},
      {"streams", r.streams()},
      {"kinds", kinds},
      {"frames",
       {{"sent_by_healthy_streams", r.frames_sent},
        {"verified", r.frames_verified},
        {"lost", r.frames_lost},
        {"misordered", r.frames_misordered},
        {"wrong", r.frames_wrong}}},
      {"streams_stalled", r.streams_stalled},
      {"refused_in_shutdown", r.refused_in_shutdown},
      {"health",
       {{"checks", r.health_checks},
        {"failures", r.health_failures},
        {"max_latency_ms", JsonNumber(r.health_max_latency_ms)}}}};
  if (r.metrics_watched) {
    out["metrics"] = {{"scrapes", r.metrics_scrapes},
                      {"failures", r.metrics_scrape_failures},
                      {"max_latency_ms", JsonNumber(r.metrics_max_latency_ms)},
                      {"idle_connections", r.metrics_idle_connections},
                      {"slow_requests", r.metrics_slow_requests},
                      {"connections_reopened", r.metrics_connections_reopened},
                      {"connect_failures", r.metrics_connect_failures}};
  }
  if (r.urls_served) {
    out["slow_urls"] = {{"requests", r.url_requests},
                        {"complete", r.url_complete},
                        {"aborted", r.url_aborted},
                        {"fetches_after_cancel", r.url_fetches_after_cancel}};
  }
  if (r.server_pid != 0) {
    out["server"] = {{"pid", r.server_pid},
                     {"alive_at_end", r.server_alive_at_end},
                     {"deaths", r.server_deaths()},
                     {"rss_at_rest_kib", r.idle_rss_kb},
                     {"rss_peak_kib", r.peak_rss_kb},
                     {"rss_budget_bytes", r.rss_budget_bytes},
                     {"rss_within_budget",
                      r.rss_budget_bytes > 0 ? nlohmann::ordered_json(r.rss_within_budget())
                                             : nlohmann::ordered_json(nullptr)},
                     {"rss",
                      {{"measured", r.rss.measured},
                       {"samples_after_warmup", r.rss.samples},
                       {"baseline_kib", r.rss.baseline_kb},
                       {"final_kib", r.rss.final_kb},
                       {"peak_kib", r.rss.peak_kb},
                       {"growth_pct", JsonNumber(r.rss.growth_pct)},
                       {"limit_pct", JsonNumber(r.max_rss_growth_pct)},
                       {"series_kib", r.rss.series}}}};
  }
  if (r.watch_gpu_memory) {
    out["gpu_memory"] = {{"measured", r.gpu_memory.measured},
                         {"samples_after_warmup", r.gpu_memory.samples},
                         {"baseline_mib", r.gpu_memory.baseline_kb},
                         {"final_mib", r.gpu_memory.final_kb},
                         {"peak_mib", r.gpu_memory.peak_kb},
                         {"growth_pct", JsonNumber(r.gpu_memory.growth_pct)}};
  }
  if (r.shutdown_test) {
    out["shutdown"] = {
        {"grace_seconds", JsonNumber(r.grace_seconds)},
        {"streams_finished_in_grace", r.streams_finished_in_grace},
        {"last_stream_after_sigterm_seconds", JsonNumber(r.last_stream_after_sigterm_seconds)},
        {"server_exit_after_sigterm_seconds",
         r.server_exit_after_sigterm_seconds < 0
             ? nullptr
             : JsonNumber(r.server_exit_after_sigterm_seconds)}};
  }
  out["problems"] = r.problems;
  if (!r.notes.empty()) out["notes"] = r.notes;
  return JsonText(out);
}

std::string SummaryLine(const LoadReport& r) {
  std::string why;
  const bool passed = r.Passed(&why);
  int64_t healthy = 0;
  for (int i = 0; i < kStreamKinds; ++i) {
    if (IsHealthy(static_cast<StreamKind>(i))) healthy += r.kinds[i].streams;
  }
  std::string line = absl::StrFormat(
      "fault_load: %s in %.1f s: %d streams (%d healthy, %d with faults), %d frames verified, "
      "%d lost, %d misordered, %d wrong, %d unexpected statuses, health %d/%d answered",
      passed ? "PASS" : "FAIL", r.duration_seconds, r.streams(), healthy, r.streams() - healthy,
      r.frames_verified, r.frames_lost, r.frames_misordered, r.frames_wrong,
      r.unexpected_statuses(), r.health_checks - r.health_failures, r.health_checks);
  if (r.metrics_watched) {
    absl::StrAppendFormat(&line,
                          ", /metrics %d/%d answered (beside %d idle connections and %d slow "
                          "requests)",
                          r.metrics_scrapes - r.metrics_scrape_failures, r.metrics_scrapes,
                          r.metrics_idle_connections, r.metrics_slow_requests);
  }
  if (r.server_pid != 0 && r.rss.measured) {
    absl::StrAppendFormat(&line, ", rss %.1f -> %.1f MiB (%+.1f%%, peak %.1f MiB)",
                          r.rss.baseline_kb / 1024.0, r.rss.final_kb / 1024.0, r.rss.growth_pct,
                          r.rss.peak_kb / 1024.0);
  }
  if (r.server_pid != 0 && r.rss_budget_bytes > 0) {
    absl::StrAppendFormat(&line, ", peak rss %.1f MiB (budget %.1f at rest + %.1f MiB)",
                          r.peak_rss_kb / 1024.0, r.idle_rss_kb / 1024.0,
                          r.rss_budget_bytes / 1048576.0);
  }
  if (r.urls_served) {
    absl::StrAppendFormat(&line, ", slow URLs %d fetched (%d cut), %d fetched after a cancel",
                          r.url_requests, r.url_aborted, r.url_fetches_after_cancel);
  }
  if (r.watch_gpu_memory && r.gpu_memory.measured) {
    absl::StrAppendFormat(&line, ", device memory %d -> %d MiB (%+.1f%%)", r.gpu_memory.baseline_kb,
                          r.gpu_memory.final_kb, r.gpu_memory.growth_pct);
  }
  if (r.server_pid != 0 && !r.shutdown_test) {
    absl::StrAppend(&line, r.server_alive_at_end ? ", server alive" : ", SERVER DIED");
  }
  if (r.shutdown_test) {
    absl::StrAppendFormat(&line,
                          ", SIGTERM: %d in-flight streams completed within %.2f s, %d new ones "
                          "refused, server exited after %s",
                          r.streams_finished_in_grace, r.last_stream_after_sigterm_seconds,
                          r.refused_in_shutdown,
                          r.server_exit_after_sigterm_seconds < 0
                              ? std::string("(not in time)")
                              : absl::StrFormat("%.2f s", r.server_exit_after_sigterm_seconds));
  }
  if (!passed) absl::StrAppend(&line, " [", why, "]");
  return line;
}

}  // namespace ssimd::fault_load
