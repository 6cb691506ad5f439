#include "tools/fault_load/load_report.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace ssimd::fault_load {
namespace {

constexpr size_t kMaxProblems = 20;

std::string JsonString(const std::string& s) {
  std::string out = "\"";
  for (const char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          absl::StrAppendFormat(&out, "\\u%04x", static_cast<unsigned char>(c));
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

std::string JsonNumber(double x) {
  if (!std::isfinite(x)) return "null";
  return absl::StrFormat("%.6g", x);
}

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
  } else if (plan.kind != StreamKind::kVanish && outcome.code == grpc::StatusCode::OK) {
    ++k.ok;
  } else {
    ++k.expected_errors;
    if (IsHealthy(plan.kind) && outcome.code == grpc::StatusCode::UNAVAILABLE) {
      ++refused_in_shutdown;
    }
  }
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
  std::string kinds;
  for (int i = 0; i < kStreamKinds; ++i) {
    const KindTotals& k = r.kinds[i];
    absl::StrAppendFormat(
        &kinds, "%s\"%s\": {\"streams\": %d, \"ok\": %d, \"expected_errors\": %d, "
                "\"unexpected\": %d}",
        i == 0 ? "" : ", ", KindName(static_cast<StreamKind>(i)), k.streams, k.ok,
        k.expected_errors, k.unexpected);
  }
  std::vector<std::string> problems;
  for (const std::string& p : r.problems) problems.push_back(JsonString(p));
  std::string out = absl::StrFormat(
      "{\"passed\": %s, \"failures\": %s, \"duration_seconds\": %s, \"streams\": %d, "
      "\"kinds\": {%s}, "
      "\"frames\": {\"sent_by_healthy_streams\": %d, \"verified\": %d, \"lost\": %d, "
      "\"misordered\": %d, \"wrong\": %d}, \"streams_stalled\": %d, "
      "\"refused_in_shutdown\": %d, "
      "\"health\": {\"checks\": %d, \"failures\": %d, \"max_latency_ms\": %s}",
      passed ? "true" : "false", JsonString(why), JsonNumber(r.duration_seconds), r.streams(),
      kinds, r.frames_sent, r.frames_verified, r.frames_lost, r.frames_misordered,
      r.frames_wrong, r.streams_stalled, r.refused_in_shutdown, r.health_checks,
      r.health_failures, JsonNumber(r.health_max_latency_ms));
  if (r.server_pid != 0) {
    absl::StrAppendFormat(
        &out,
        ", \"server\": {\"pid\": %d, \"alive_at_end\": %s, \"rss\": {\"measured\": %s, "
        "\"samples_after_warmup\": %d, \"baseline_kib\": %d, \"final_kib\": %d, \"peak_kib\": %d, "
        "\"growth_pct\": %s, \"limit_pct\": %s, \"series_kib\": [%s]}}",
        r.server_pid, r.server_alive_at_end ? "true" : "false",
        r.rss.measured ? "true" : "false", r.rss.samples, r.rss.baseline_kb, r.rss.final_kb,
        r.rss.peak_kb, JsonNumber(r.rss.growth_pct), JsonNumber(r.max_rss_growth_pct),
        absl::StrJoin(r.rss.series, ", "));
  }
  if (r.watch_gpu_memory) {
    absl::StrAppendFormat(&out,
                          ", \"gpu_memory\": {\"measured\": %s, \"samples_after_warmup\": %d, "
                          "\"baseline_mib\": %d, \"final_mib\": %d, \"peak_mib\": %d, "
                          "\"growth_pct\": %s}",
                          r.gpu_memory.measured ? "true" : "false", r.gpu_memory.samples,
                          r.gpu_memory.baseline_kb, r.gpu_memory.final_kb, r.gpu_memory.peak_kb,
                          JsonNumber(r.gpu_memory.growth_pct));
  }
  if (r.shutdown_test) {
    absl::StrAppendFormat(&out,
                          ", \"shutdown\": {\"grace_seconds\": %s, "
                          "\"streams_finished_in_grace\": %d, "
                          "\"last_stream_after_sigterm_seconds\": %s, "
                          "\"server_exit_after_sigterm_seconds\": %s}",
                          JsonNumber(r.grace_seconds), r.streams_finished_in_grace,
                          JsonNumber(r.last_stream_after_sigterm_seconds),
                          r.server_exit_after_sigterm_seconds < 0
                              ? "null"
                              : JsonNumber(r.server_exit_after_sigterm_seconds));
  }
  absl::StrAppend(&out, ", \"problems\": [", absl::StrJoin(problems, ", "), "]}");
  return out;
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
  if (r.server_pid != 0 && r.rss.measured) {
    absl::StrAppendFormat(&line, ", rss %.1f -> %.1f MiB (%+.1f%%, peak %.1f MiB)",
                          r.rss.baseline_kb / 1024.0, r.rss.final_kb / 1024.0, r.rss.growth_pct,
                          r.rss.peak_kb / 1024.0);
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
