// Keeps the server's metrics port busy the way a hostile or careless client would (many idle TCP
// connections, a few HTTP requests that never complete, each re-opened when the server closes
// it) while scraping /metrics at a steady pace, and counts how many scrapes were answered.
// The server must keep answering (docs/adr/0067).
#ifndef SSIMD_TOOLS_FAULT_LOAD_METRICS_HOG_H_
#define SSIMD_TOOLS_FAULT_LOAD_METRICS_HOG_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"

namespace ssimd::fault_load {

struct HostPort {
  std::string host;  // numeric IPv4
  int port = 0;
};
// "127.0.0.1:9090" (loopback IPv4 only: the hog is for a server on this machine).
absl::StatusOr<HostPort> ParseLoopbackAddress(const std::string& text);

// Whether an HTTP response to GET /metrics is an answer: status 200 and a body with ssimd's
// metrics. Empty when it is; otherwise why not.
std::string ScrapeProblem(const std::string& response);

struct MetricsHogOptions {
  HostPort address;
  int idle_connections = 50;
  int slow_requests = 3;
  absl::Duration scrape_interval = absl::Seconds(1);
  absl::Duration scrape_timeout = absl::Seconds(5);
};

struct MetricsHogTotals {
  int64_t scrapes = 0;
  int64_t scrape_failures = 0;
  double scrape_max_latency_ms = 0;
  int64_t connections_reopened = 0;  // idle or slow ones the server had closed
  int64_t connect_failures = 0;      // idle or slow ones that could not be opened
  std::vector<std::string> problems;  // the first few failed scrapes
};

class MetricsHog {
 public:
  explicit MetricsHog(MetricsHogOptions options) : options_(std::move(options)) {}
  ~MetricsHog();
  MetricsHog(const MetricsHog&) = delete;
  MetricsHog& operator=(const MetricsHog&) = delete;

  // Runs until Stop(); `started` is the run's start, for the times in problems.
  void Run(absl::Time started);
  void Stop() { stop_.Notify(); }
  MetricsHogTotals Totals();

 private:
  void KeepHogsOpen();
  void Scrape(absl::Time started);

  const MetricsHogOptions options_;
  absl::Notification stop_;
  std::vector<int> idle_fds_;
  std::vector<int> slow_fds_;
  absl::Mutex mu_;
  MetricsHogTotals totals_ ABSL_GUARDED_BY(mu_);
};

}  // namespace ssimd::fault_load

#endif  // SSIMD_TOOLS_FAULT_LOAD_METRICS_HOG_H_
