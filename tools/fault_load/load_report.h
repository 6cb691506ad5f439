// Totals of a fault-and-load run, the pass/fail decision, and the summary as JSON and as one
// readable line.
#ifndef SSIMD_TOOLS_FAULT_LOAD_LOAD_REPORT_H_
#define SSIMD_TOOLS_FAULT_LOAD_LOAD_REPORT_H_

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "tools/fault_load/fault_plan.h"
#include "tools/fault_load/process_watch.h"

namespace ssimd::fault_load {

struct KindTotals {
  int64_t streams = 0;
  int64_t ok = 0;              // ended with status OK
  int64_t expected_errors = 0; // ended with the status the fault calls for
  int64_t unexpected = 0;      // any other ending
};

struct LoadReport {
  double duration_seconds = 0;
  std::array<KindTotals, kStreamKinds> kinds{};
  // How streams ended within their kind (Verdict::tag), e.g. where a ladder was cancelled or with
  // which code a decode bomb was refused.
  std::array<std::map<std::string, int64_t>, kStreamKinds> tags{};
  int64_t frames_sent = 0;     // by healthy streams
  int64_t frames_verified = 0; // results equal to the CPU engine's, in order (all streams)
  int64_t frames_lost = 0;
  int64_t frames_misordered = 0;
  int64_t frames_wrong = 0;
  int64_t streams_stalled = 0;
  int64_t streams_with_problems = 0;  // any problem, including ones no counter above covers
  int64_t refused_in_shutdown = 0;

  int64_t health_checks = 0;
  int64_t health_failures = 0;
  double health_max_latency_ms = 0;

  // The metrics port under idle connections and slow requests (--metrics_address).
  bool metrics_watched = false;
  int64_t metrics_scrapes = 0;
  int64_t metrics_scrape_failures = 0;
  double metrics_max_latency_ms = 0;
  int64_t metrics_idle_connections = 0;
  int64_t metrics_slow_requests = 0;
  int64_t metrics_connections_reopened = 0;
  int64_t metrics_connect_failures = 0;

  int server_pid = 0;  // 0: not watched
  bool server_alive_at_end = true;
  RssGrowth rss;
  // Peak resident memory against a budget: the server at rest (before the load) plus
  // rss_budget_bytes (0: not judged). The peak is the kernel's high-water mark (VmHWM), which no
  // sampling interval can miss, or the largest sample where that is unknown.
  int64_t rss_budget_bytes = 0;
  int64_t idle_rss_kb = 0;
  int64_t peak_rss_kb = 0;

  // Ladder kinds: renditions fetched over the tool's slow HTTP server.
  bool urls_served = false;
  int64_t url_requests = 0;
  int64_t url_complete = 0;
  int64_t url_aborted = 0;
  int64_t url_fetches_after_cancel = 0;  // started or went on after their call was cancelled
  std::vector<std::string> notes;  // what the run left out and why (e.g. files it could not make)
  // Device memory of the server (nvidia-smi), in MiB despite the field names of RssGrowth.
  bool watch_gpu_memory = false;
  RssGrowth gpu_memory;
  double max_rss_growth_pct = 0;  // 0: report the growth without judging it (both memories)

  // SIGTERM during the run (the graceful shutdown check).
  bool shutdown_test = false;
  double grace_seconds = 0;
  int64_t streams_finished_in_grace = 0;  // running at the signal, completed OK after it
  double last_stream_after_sigterm_seconds = 0;  // until the last of those completed
  double server_exit_after_sigterm_seconds = -1;  // -1: it did not exit in time

  std::vector<std::string> problems;  // the first few, for the report

  void Add(const StreamPlan& plan, const StreamOutcome& outcome, const Verdict& verdict);
  void AddProblem(const std::string& problem);
  int64_t streams() const;
  int64_t unexpected_statuses() const;
  int64_t server_deaths() const { return server_pid != 0 && !server_alive_at_end ? 1 : 0; }
  bool rss_within_budget() const {
    return peak_rss_kb * 1024 <= idle_rss_kb * 1024 + rss_budget_bytes;
  }
  // Every check that applies passed; `why` lists the failed ones.
  bool Passed(std::string* why) const;
};

std::string ToJson(const LoadReport& report);
std::string SummaryLine(const LoadReport& report);

}  // namespace ssimd::fault_load

#endif  // SSIMD_TOOLS_FAULT_LOAD_LOAD_REPORT_H_
