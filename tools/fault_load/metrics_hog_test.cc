#include "tools/fault_load/metrics_hog.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "absl/time/clock.h"
#include "gtest/gtest.h"

namespace ssimd::fault_load {
namespace {

TEST(ParseLoopbackAddress, TakesLoopbackHostAndPort) {
  auto a = ParseLoopbackAddress("127.0.0.1:9090");
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->host, "127.0.0.1");
  EXPECT_EQ(a->port, 9090);
}

TEST(ParseLoopbackAddress, RefusesOtherHostsAndBadPorts) {
  EXPECT_FALSE(ParseLoopbackAddress("10.0.0.1:9090").ok());
  EXPECT_FALSE(ParseLoopbackAddress("127.0.0.1").ok());
  EXPECT_FALSE(ParseLoopbackAddress("127.0.0.1:0").ok());
  EXPECT_FALSE(ParseLoopbackAddress("127.0.0.1:70000").ok());
  EXPECT_FALSE(ParseLoopbackAddress("127.0.0.1:port").ok());
}

TEST(ScrapeProblem, AcceptsOnlyA200WithSsimdMetrics) {
  EXPECT_EQ(ScrapeProblem("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n"
                          "ssimd_rpcs_total{method=\"ScoreClip\"} 3\n"),
            "");
  EXPECT_NE(ScrapeProblem(""), "");
  EXPECT_NE(ScrapeProblem("HTTP/1.1 503 Service Unavailable\r\n\r\nssimd_x 1\n"), "");
  EXPECT_NE(ScrapeProblem("HTTP/1.1 200 OK\r\n\r\nsomething_else 1\n"), "");
  EXPECT_NE(ScrapeProblem("HTTP/1.1 200 OK\r\nssimd_rpcs_total 1"), "");  // headers never end
}

// A stand-in for the metrics port: accepts every connection, and answers each complete request
// with a metrics page when `answer` is set (otherwise it keeps the connection and says nothing).
class FakeMetricsPort {
 public:
  explicit FakeMetricsPort(bool answer) : answer_(answer) {
    listen_fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(listen_fd_, reinterpret_cast<sockaddr*>(&sa), sizeof(sa));
    listen(listen_fd_, 128);
    socklen_t len = sizeof(sa);
    getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&sa), &len);
    port_ = ntohs(sa.sin_port);
    thread_ = std::thread([this] { Serve(); });
  }
  ~FakeMetricsPort() {
    stop_ = true;
    thread_.join();
    for (const Client& c : clients_) close(c.fd);
    close(listen_fd_);
  }
  int port() const { return port_; }
  int accepted() const { return accepted_.load(); }

 private:
  struct Client {
    int fd;
    std::string got;
  };

  void Serve() {
    while (!stop_) {
      std::vector<pollfd> fds = {{listen_fd_, POLLIN, 0}};
      for (const Client& c : clients_) fds.push_back({c.fd, POLLIN, 0});
      if (poll(fds.data(), fds.size(), 20) <= 0) continue;
      if (fds[0].revents & POLLIN) {
        clients_.push_back({accept(listen_fd_, nullptr, nullptr), ""});
        ++accepted_;
      }
      for (size_t i = 1; i < fds.size(); ++i) {
        if (!(fds[i].revents & (POLLIN | POLLHUP))) continue;
        Client& c = clients_[i - 1];
        char buf[4096];
        const ssize_t n = recv(c.fd, buf, sizeof(buf), 0);
        if (n <= 0) continue;
        c.got.append(buf, static_cast<size_t>(n));
        if (answer_ && c.got.find("\r\n\r\n") != std::string::npos) {
          const std::string page =
              "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nssimd_rpcs_total 1\n";
          send(c.fd, page.data(), page.size(), MSG_NOSIGNAL);
          shutdown(c.fd, SHUT_RDWR);
        }
      }
    }
  }

  const bool answer_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int> accepted_{0};
  std::vector<Client> clients_;  // only the serving thread touches it until the destructor
  std::thread thread_;
};

MetricsHogOptions OptionsFor(int port) {
  MetricsHogOptions o;
  o.address = {"127.0.0.1", port};
  o.idle_connections = 5;
  o.slow_requests = 2;
  o.scrape_interval = absl::Milliseconds(50);
  o.scrape_timeout = absl::Milliseconds(300);
  return o;
}

TEST(MetricsHog, HoldsItsConnectionsAndCountsAnsweredScrapes) {
  FakeMetricsPort port(/*answer=*/true);
  MetricsHog hog(OptionsFor(port.port()));
  std::thread run([&] { hog.Run(absl::Now()); });
  absl::SleepFor(absl::Milliseconds(400));
  hog.Stop();
  run.join();
  const MetricsHogTotals t = hog.Totals();
  EXPECT_GE(t.scrapes, 2);
  EXPECT_EQ(t.scrape_failures, 0);
  EXPECT_EQ(t.connect_failures, 0);
  // 5 idle + 2 slow connections held throughout, plus one per scrape.
  EXPECT_EQ(port.accepted(), 7 + t.scrapes);
}

TEST(MetricsHog, AScrapeWithoutAnAnswerFails) {
  FakeMetricsPort port(/*answer=*/false);
  MetricsHogOptions options = OptionsFor(port.port());
  options.idle_connections = 0;
  options.slow_requests = 0;
  MetricsHog hog(options);
  std::thread run([&] { hog.Run(absl::Now()); });
  absl::SleepFor(absl::Milliseconds(100));
  hog.Stop();
  run.join();
  const MetricsHogTotals t = hog.Totals();
  ASSERT_GE(t.scrapes, 1);
  EXPECT_EQ(t.scrape_failures, t.scrapes);
  ASSERT_FALSE(t.problems.empty());
  EXPECT_NE(t.problems[0].find("no complete answer"), std::string::npos) << t.problems[0];
}

}  // namespace
}  // namespace ssimd::fault_load
