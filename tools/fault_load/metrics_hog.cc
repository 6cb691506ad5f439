#include "tools/fault_load/metrics_hog.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"

namespace ssimd::fault_load {
namespace {

constexpr size_t kMaxProblems = 10;
// A request that never completes: the start of a request line, then a byte now and then.
constexpr char kSlowStart[] = "GET /metr";

// A blocking socket whose connect, sends and receives give up after `timeout`; -1 on failure.
int Connect(const HostPort& address, absl::Duration timeout) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  timeval tv = absl::ToTimeval(timeout);
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));  // bounds connect too
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(static_cast<uint16_t>(address.port));
  inet_pton(AF_INET, address.host.c_str(), &sa.sin_addr);
  if (connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof(sa)) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

bool SendAll(int fd, const std::string& data) {
  size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = send(fd, data.data() + done, data.size() - done, MSG_NOSIGNAL);
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

// Whether the server has closed (or reset) this connection: readable with nothing to read.
bool ClosedByPeer(int fd) {
  pollfd p{fd, POLLIN, 0};
  if (poll(&p, 1, 0) <= 0) return false;
  if (p.revents & (POLLERR | POLLHUP)) return true;
  char c;
  const ssize_t n = recv(fd, &c, 1, MSG_PEEK | MSG_DONTWAIT);
  // A server may answer a partial request with an error page before closing: that is also an
  // end of this connection's use as a hog.
  return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) || n > 0;
}

}  // namespace

absl::StatusOr<HostPort> ParseLoopbackAddress(const std::string& text) {
  const size_t colon = text.rfind(':');
  HostPort out;
  in_addr ignored;
  if (colon == std::string::npos || !absl::SimpleAtoi(text.substr(colon + 1), &out.port) ||
      out.port <= 0 || out.port > 65535) {
    return absl::InvalidArgumentError(
        absl::StrCat("--metrics_address: expected 127.x.x.x:PORT, got \"", text, "\""));
  }
  out.host = text.substr(0, colon);
  if (!absl::StartsWith(out.host, "127.") || inet_pton(AF_INET, out.host.c_str(), &ignored) != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--metrics_address: only a loopback IPv4 address (127.x.x.x:PORT), got \"", text, "\""));
  }
  return out;
}

std::string ScrapeProblem(const std::string& response) {
  if (response.empty()) return "no answer";
  const size_t line_end = response.find("\r\n");
  const std::string status_line = response.substr(0, line_end);
  if (!absl::StartsWith(status_line, "HTTP/1.") || status_line.find(" 200") == std::string::npos) {
    return absl::StrCat("status line \"", status_line.substr(0, 80), "\"");
  }
  const size_t body = response.find("\r\n\r\n");
  if (body == std::string::npos) return "no end of headers";
  if (response.find("ssimd_", body) == std::string::npos) return "a body without ssimd metrics";
  return "";
}

MetricsHog::~MetricsHog() {
  for (int fd : idle_fds_) if (fd >= 0) close(fd);
  for (int fd : slow_fds_) if (fd >= 0) close(fd);
}

void MetricsHog::KeepHogsOpen() {
  int reopened = 0;
  int failed = 0;
  auto keep = [&](std::vector<int>& fds, int n, bool slow) {
    fds.resize(static_cast<size_t>(n), -1);
    for (int& fd : fds) {
      const bool was_open = fd >= 0;
      if (was_open && !ClosedByPeer(fd)) {
        // A slow request dribbles on one byte at a time (never reaching the end of its headers).
        if (slow && !SendAll(fd, "X")) {
          close(fd);
          fd = -1;
        } else {
          continue;
        }
      } else if (was_open) {
        close(fd);
        fd = -1;
      }
      fd = Connect(options_.address, absl::Seconds(2));
      if (fd >= 0 && slow && !SendAll(fd, kSlowStart)) {
        close(fd);
        fd = -1;
      }
      if (fd < 0) {
        ++failed;
      } else if (was_open) {
        ++reopened;
      }
    }
  };
  keep(idle_fds_, options_.idle_connections, false);
  keep(slow_fds_, options_.slow_requests, true);
  absl::MutexLock lock(&mu_);
  totals_.connections_reopened += reopened;
  totals_.connect_failures += failed;
}

void MetricsHog::Scrape(absl::Time started) {
  const absl::Time asked = absl::Now();
  const absl::Time give_up = asked + options_.scrape_timeout;
  std::string response;
  std::string problem;
  const int fd = Connect(options_.address, options_.scrape_timeout);
  if (fd < 0) {
    problem = absl::StrCat("cannot connect: ", std::strerror(errno));
  } else {
    const std::string request =
        absl::StrCat("GET /metrics HTTP/1.1\r\nHost: ", options_.address.host, ":",
                     options_.address.port, "\r\nConnection: close\r\n\r\n");
    if (!SendAll(fd, request)) {
      problem = "cannot send the request";
    } else {
      char buf[16384];
      for (;;) {
        if (absl::Now() > give_up) {
          problem = absl::StrCat("no complete answer within ",
                                 absl::FormatDuration(options_.scrape_timeout));
          break;
        }
        const ssize_t n = recv(fd, buf, sizeof(buf), 0);
        if (n == 0) break;  // Connection: close, so the end of the answer
        if (n < 0) {
          problem = absl::StrCat("no complete answer within ",
                                 absl::FormatDuration(options_.scrape_timeout));
          break;
        }
        response.append(buf, static_cast<size_t>(n));
      }
    }
    close(fd);
  }
  if (problem.empty()) problem = ScrapeProblem(response);
  const double ms = absl::ToDoubleMilliseconds(absl::Now() - asked);
  absl::MutexLock lock(&mu_);
  ++totals_.scrapes;
  totals_.scrape_max_latency_ms = std::max(totals_.scrape_max_latency_ms, ms);
  if (!problem.empty()) {
    ++totals_.scrape_failures;
    if (totals_.problems.size() < kMaxProblems) {
      totals_.problems.push_back(absl::StrFormat("metrics scrape at %.1f s: %s",
                                                 absl::ToDoubleSeconds(asked - started), problem));
    }
  }
}

void MetricsHog::Run(absl::Time started) {
  do {
    KeepHogsOpen();
    Scrape(started);
  } while (!stop_.WaitForNotificationWithTimeout(options_.scrape_interval));
}

MetricsHogTotals MetricsHog::Totals() {
  absl::MutexLock lock(&mu_);
  return totals_;
}

}  // namespace ssimd::fault_load
