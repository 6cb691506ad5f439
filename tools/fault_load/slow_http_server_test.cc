#include "tools/fault_load/slow_http_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace ssimd::fault_load {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

int Connect(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = htons(static_cast<uint16_t>(port));
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

// Sends `request` and reads until the server closes the connection.
std::string Exchange(int port, const std::string& request) {
  const int fd = Connect(port);
  if (fd < 0) return "";
  ::send(fd, request.data(), request.size(), 0);
  std::string response;
  char buffer[4096];
  ssize_t n;
  while ((n = ::recv(fd, buffer, sizeof buffer, 0)) > 0) response.append(buffer, n);
  ::close(fd);
  return response;
}

class SlowHttpServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = std::string(::testing::TempDir()) + "/http_root";
    ::mkdir(root_.c_str(), 0755);
    ::mkdir((root_ + "/fault_load").c_str(), 0755);
    body_.assign(10000, '\0');
    for (size_t i = 0; i < body_.size(); ++i) body_[i] = static_cast<char>(i % 251);
    std::ofstream(root_ + "/fault_load/file.bin", std::ios::binary) << body_;
    std::ofstream(root_ + "/outside.bin") << "secret";
  }

  std::unique_ptr<SlowHttpServer> Start(int64_t chunk, absl::Duration interval) {
    SlowHttpOptions options;
    options.root = root_;
    options.path_prefix = "/fault_load/";
    options.chunk_bytes = chunk;
    options.chunk_interval = interval;
    auto server = SlowHttpServer::Start(options);
    EXPECT_TRUE(server.ok()) << server.status();
    return server.ok() ? *std::move(server) : nullptr;
  }

  std::string root_;
  std::string body_;
};

TEST(CallOfTargetTest, ReadsTheCallParameter) {
  EXPECT_EQ(CallOfTarget("/a/b.y4m?call=17"), "17");
  EXPECT_EQ(CallOfTarget("/a/b.y4m?x=1&call=abc&y=2"), "abc");
  EXPECT_EQ(CallOfTarget("/a/b.y4m"), "");
  EXPECT_EQ(CallOfTarget("/a/b.y4m?recall=3"), "");
}

TEST_F(SlowHttpServerTest, ServesTheWholeFileSlowlyAndRecordsTheFetch) {
  auto server = Start(2500, absl::Milliseconds(50));
  ASSERT_NE(server, nullptr);
  EXPECT_EQ(server->Origin(), absl::StrCat("http://127.0.0.1:", server->port()));
  const absl::Time start = absl::Now();
  const std::string response =
      Exchange(server->port(), "GET /fault_load/file.bin?call=7 HTTP/1.1\r\nHost: x\r\n\r\n");
  const absl::Duration took = absl::Now() - start;
  ASSERT_THAT(response, StartsWith("HTTP/1.1 200 OK\r\n"));
  EXPECT_THAT(response, HasSubstr("Content-Length: 10000\r\n"));
  const size_t body_at = response.find("\r\n\r\n") + 4;
  EXPECT_EQ(response.substr(body_at), body_);
  // Four chunks, three pauses between them.
  EXPECT_GE(took, absl::Milliseconds(140));

  const std::vector<HttpFetch> fetches = server->FetchesOf("7");
  ASSERT_EQ(fetches.size(), 1u);
  EXPECT_EQ(fetches[0].path, "/fault_load/file.bin");
  EXPECT_TRUE(fetches[0].complete);
  EXPECT_EQ(fetches[0].bytes_sent, 10000);
  EXPECT_NE(fetches[0].ended, absl::InfiniteFuture());
  server->Forget("7");
  EXPECT_TRUE(server->FetchesOf("7").empty());
  EXPECT_EQ(server->Totals().complete, 1);
}

TEST_F(SlowHttpServerTest, RefusesPathsOutsideItsPrefixAndBadRequests) {
  auto server = Start(16384, absl::Milliseconds(1));
  ASSERT_NE(server, nullptr);
  EXPECT_THAT(Exchange(server->port(), "GET /outside.bin HTTP/1.1\r\n\r\n"),
              StartsWith("HTTP/1.1 404"));
  EXPECT_THAT(Exchange(server->port(), "GET /fault_load/../outside.bin HTTP/1.1\r\n\r\n"),
              StartsWith("HTTP/1.1 404"));
  EXPECT_THAT(Exchange(server->port(), "GET /fault_load/missing.bin HTTP/1.1\r\n\r\n"),
              StartsWith("HTTP/1.1 404"));
  EXPECT_THAT(Exchange(server->port(), "POST /fault_load/file.bin HTTP/1.1\r\n\r\n"),
              StartsWith("HTTP/1.1 400"));
  EXPECT_EQ(server->Totals().refused, 4);
  EXPECT_EQ(server->Totals().requests, 0);
}

// A client that goes away mid-transfer (the ssimd server dropping a cancelled call's fetch) ends
// the transfer: the fetch is recorded as cut, with when it ended.
TEST_F(SlowHttpServerTest, StallsBetweenChunksAndNoticesAClientThatLeaves) {
  auto server = Start(1000, absl::Milliseconds(100));
  ASSERT_NE(server, nullptr);
  const int fd = Connect(server->port());
  ASSERT_GE(fd, 0);
  const std::string request = "GET /fault_load/file.bin?call=9 HTTP/1.1\r\n\r\n";
  ::send(fd, request.data(), request.size(), 0);
  // The header and the first chunk come at once; the rest would take a second.
  absl::SleepFor(absl::Milliseconds(150));
  char buffer[4096];
  const ssize_t got = ::recv(fd, buffer, sizeof buffer, MSG_DONTWAIT);
  EXPECT_GT(got, 0);
  EXPECT_LT(got, 4000);
  std::vector<HttpFetch> fetches = server->FetchesOf("9");
  ASSERT_EQ(fetches.size(), 1u);
  EXPECT_EQ(fetches[0].ended, absl::InfiniteFuture());  // still under way
  ::close(fd);
  const absl::Time closed = absl::Now();
  for (int i = 0; i < 100 && server->FetchesOf("9")[0].ended == absl::InfiniteFuture(); ++i) {
    absl::SleepFor(absl::Milliseconds(20));
  }
  fetches = server->FetchesOf("9");
  EXPECT_NE(fetches[0].ended, absl::InfiniteFuture());
  EXPECT_LT(fetches[0].ended - closed, absl::Milliseconds(500));
  EXPECT_FALSE(fetches[0].complete);
  EXPECT_LT(fetches[0].bytes_sent, 10000);
  EXPECT_EQ(server->Totals().aborted, 1);
}

TEST_F(SlowHttpServerTest, StopEndsTransfersUnderWay) {
  auto server = Start(100, absl::Seconds(10));
  ASSERT_NE(server, nullptr);
  const int fd = Connect(server->port());
  ASSERT_GE(fd, 0);
  const std::string request = "GET /fault_load/file.bin HTTP/1.1\r\n\r\n";
  ::send(fd, request.data(), request.size(), 0);
  absl::SleepFor(absl::Milliseconds(100));
  const absl::Time start = absl::Now();
  server->Stop();
  EXPECT_LT(absl::Now() - start, absl::Seconds(2));
  ::close(fd);
}

}  // namespace
}  // namespace ssimd::fault_load
