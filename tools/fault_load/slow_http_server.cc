#include "tools/fault_load/slow_http_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"

namespace ssimd::fault_load {
namespace {

constexpr size_t kMaxRequestHead = 8192;

void SetTimeout(int fd, int option, absl::Duration d) {
  timeval tv = absl::ToTimeval(d);
  ::setsockopt(fd, SOL_SOCKET, option, &tv, sizeof tv);
}

bool SendAll(int fd, const char* data, size_t size) {
  while (size > 0) {
    const ssize_t n = ::send(fd, data, size, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

void SendStatus(int fd, int code, const char* reason) {
  const std::string response = absl::StrFormat(
      "HTTP/1.1 %d %s\r\nContent-Length: 0\r\nConnection: close\r\n\r\n", code, reason);
  SendAll(fd, response.data(), response.size());
}

// Whether the peer has closed its side (a cancelled transfer), without waiting.
bool PeerClosed(int fd) {
  char byte;
  const ssize_t n = ::recv(fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
  return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR);
}

// Reads the request head ("GET /x HTTP/1.1\r\n...\r\n\r\n"); empty on timeout or garbage.
std::string ReadHead(int fd) {
  std::string head;
  char buffer[1024];
  while (head.size() < kMaxRequestHead && head.find("\r\n\r\n") == std::string::npos) {
    const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return "";
    head.append(buffer, static_cast<size_t>(n));
  }
  return head.find("\r\n\r\n") == std::string::npos ? "" : head;
}

}  // namespace

std::string CallOfTarget(const std::string& target) {
  const size_t query = target.find('?');
  if (query == std::string::npos) return "";
  for (absl::string_view pair : absl::StrSplit(target.substr(query + 1), '&')) {
    if (absl::ConsumePrefix(&pair, "call=")) return std::string(pair);
  }
  return "";
}

absl::StatusOr<std::unique_ptr<SlowHttpServer>> SlowHttpServer::Start(SlowHttpOptions options) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return absl::InternalError(absl::StrCat("socket: ", std::strerror(errno)));
  const int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = htons(static_cast<uint16_t>(options.port));
  if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
      ::listen(fd, 64) != 0) {
    const int err = errno;
    ::close(fd);
    return absl::UnavailableError(absl::StrFormat(
        "the slow URL server cannot listen on 127.0.0.1:%d: %s", options.port, std::strerror(err)));
  }
  socklen_t length = sizeof address;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  std::unique_ptr<SlowHttpServer> server(
      new SlowHttpServer(std::move(options), fd, ntohs(address.sin_port)));
  server->acceptor_ = std::thread([s = server.get()] { s->AcceptLoop(); });
  return server;
}

SlowHttpServer::~SlowHttpServer() { Stop(); }

std::string SlowHttpServer::Origin() const { return absl::StrCat("http://127.0.0.1:", port_); }

void SlowHttpServer::Stop() {
  if (stop_.HasBeenNotified()) return;
  stop_.Notify();
  acceptor_.join();
  Reap(true);
  ::close(listen_fd_);
}

void SlowHttpServer::Reap(bool all) {
  for (auto it = connections_.begin(); it != connections_.end();) {
    if (all || it->done->load()) {
      it->thread.join();
      it = connections_.erase(it);
    } else {
      ++it;
    }
  }
}

void SlowHttpServer::AcceptLoop() {
  while (!stop_.HasBeenNotified()) {
    pollfd p{listen_fd_, POLLIN, 0};
    // Wakes up now and then to see whether the run is over.
    if (::poll(&p, 1, 100) <= 0) continue;
    const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    Reap(false);
    if (static_cast<int>(connections_.size()) >= options_.max_connections) {
      SendStatus(fd, 503, "Busy");
      ::close(fd);
      absl::MutexLock lock(&mu_);
      ++totals_.refused;
      continue;
    }
    auto done = std::make_shared<std::atomic<bool>>(false);
    connections_.push_back({std::thread([this, fd, done] {
                              Serve(fd);
                              ::close(fd);
                              done->store(true);
                            }),
                            done});
  }
}

void SlowHttpServer::Serve(int fd) {
  SetTimeout(fd, SO_RCVTIMEO, options_.request_timeout);
  // A transfer the client does not take is abandoned rather than blocking the thread.
  SetTimeout(fd, SO_SNDTIMEO, absl::Seconds(5));
  const std::string head = ReadHead(fd);
  std::vector<std::string> request_line =
      absl::StrSplit(head.substr(0, head.find("\r\n")), ' ', absl::SkipEmpty());
  if (request_line.size() != 3 || request_line[0] != "GET" ||
      !absl::StartsWith(request_line[2], "HTTP/1.")) {
    SendStatus(fd, 400, "Bad Request");
    absl::MutexLock lock(&mu_);
    ++totals_.refused;
    return;
  }
  SendFile(fd, request_line[1]);
}

void SlowHttpServer::SendFile(int fd, const std::string& target) {
  const std::string path = target.substr(0, target.find('?'));
  const std::string call = CallOfTarget(target);
  const int file = absl::StartsWith(path, options_.path_prefix) &&
                           !absl::StrContains(path, "..")
                       ? ::open((options_.root + path).c_str(), O_RDONLY | O_CLOEXEC)
                       : -1;
  struct stat st;
  if (file < 0 || ::fstat(file, &st) != 0 || !S_ISREG(st.st_mode)) {
    if (file >= 0) ::close(file);
    SendStatus(fd, 404, "Not Found");
    absl::MutexLock lock(&mu_);
    ++totals_.refused;
    return;
  }
  size_t record;
  {
    absl::MutexLock lock(&mu_);
    ++totals_.requests;
    std::vector<HttpFetch>& of_call = fetches_[call];
    record = of_call.size();
    of_call.push_back({path, absl::Now()});
  }
  const std::string header = absl::StrFormat(
      "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: %d\r\n"
      "Connection: close\r\n\r\n",
      st.st_size);
  bool sending = SendAll(fd, header.data(), header.size());
  int64_t sent = 0;
  std::string chunk(static_cast<size_t>(std::max<int64_t>(1, options_.chunk_bytes)), '\0');
  while (sending && sent < st.st_size) {
    const ssize_t n = ::pread(file, chunk.data(), chunk.size(), sent);
    if (n <= 0) break;
    sending = SendAll(fd, chunk.data(), static_cast<size_t>(n));
    if (sending) sent += n;
    {
      absl::MutexLock lock(&mu_);
      fetches_[call][record].bytes_sent = sent;
    }
    if (sent >= st.st_size) break;
    // The pause that makes the transfer slow; cut short when the run stops.
    if (stop_.WaitForNotificationWithTimeout(options_.chunk_interval)) break;
    if (PeerClosed(fd)) break;
  }
  ::close(file);
  absl::MutexLock lock(&mu_);
  HttpFetch& fetch = fetches_[call][record];
  fetch.ended = absl::Now();
  fetch.complete = sent == st.st_size;
  ++(fetch.complete ? totals_.complete : totals_.aborted);
}

std::vector<HttpFetch> SlowHttpServer::FetchesOf(const std::string& call) const {
  absl::MutexLock lock(&mu_);
  auto it = fetches_.find(call);
  return it == fetches_.end() ? std::vector<HttpFetch>() : it->second;
}

void SlowHttpServer::Forget(const std::string& call) {
  absl::MutexLock lock(&mu_);
  auto it = fetches_.find(call);
  // A fetch still under way keeps its record until it ends.
  if (it == fetches_.end()) return;
  for (const HttpFetch& fetch : it->second) {
    if (fetch.ended == absl::InfiniteFuture()) return;
  }
  fetches_.erase(it);
}

HttpTotals SlowHttpServer::Totals() const {
  absl::MutexLock lock(&mu_);
  return totals_;
}

}  // namespace ssimd::fault_load
