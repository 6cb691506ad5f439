// A small HTTP/1.1 file server on a loopback port that serves the tool's ladder files slowly (a
// chunk every interval), for renditions the ssimd server fetches as URLs (--allow_url_prefix). It
// records every fetch by the "call" query parameter of its URL, so the tool can tell whether the
// server went on fetching a call's inputs after the call was cancelled.
#ifndef SSIMD_TOOLS_FAULT_LOAD_SLOW_HTTP_SERVER_H_
#define SSIMD_TOOLS_FAULT_LOAD_SLOW_HTTP_SERVER_H_

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"

namespace ssimd::fault_load {

struct SlowHttpOptions {
  std::string root;          // a URL path /P is served from root + /P
  std::string path_prefix;   // only paths below this one are served, e.g. "/fault_load/"
  int port = 0;              // on 127.0.0.1; 0: any free port
  int64_t chunk_bytes = 16384;
  absl::Duration chunk_interval = absl::Milliseconds(100);
  int max_connections = 64;  // more at once are answered 503
  absl::Duration request_timeout = absl::Seconds(5);  // to receive a request's head
};

struct HttpFetch {
  std::string path;
  absl::Time started;
  absl::Time ended = absl::InfiniteFuture();  // while it runs
  int64_t bytes_sent = 0;
  bool complete = false;
};

struct HttpTotals {
  int64_t requests = 0;
  int64_t complete = 0;
  int64_t aborted = 0;  // the client went away mid-transfer
  int64_t refused = 0;  // 4xx, 503
};

// The "call" query parameter of a request target such as "/a/b.y4m?call=17"; empty if none.
std::string CallOfTarget(const std::string& target);

class SlowHttpServer {
 public:
  static absl::StatusOr<std::unique_ptr<SlowHttpServer>> Start(SlowHttpOptions options);
  ~SlowHttpServer();
  SlowHttpServer(const SlowHttpServer&) = delete;
  SlowHttpServer& operator=(const SlowHttpServer&) = delete;

  int port() const { return port_; }
  // "http://127.0.0.1:PORT"
  std::string Origin() const;
  // The fetches of `call` so far, and forgetting them (the run's memory stays bounded).
  std::vector<HttpFetch> FetchesOf(const std::string& call) const;
  void Forget(const std::string& call);
  HttpTotals Totals() const;
  // Ends the transfers under way and joins every thread.
  void Stop();

 private:
  SlowHttpServer(SlowHttpOptions options, int listen_fd, int port)
      : options_(std::move(options)), listen_fd_(listen_fd), port_(port) {}

  void AcceptLoop();
  void Serve(int fd);
  // Sends the file of `target` slowly; records the fetch under its call.
  void SendFile(int fd, const std::string& target);
  void Reap(bool all);

  struct Connection {
    std::thread thread;
    std::shared_ptr<std::atomic<bool>> done;
  };

  const SlowHttpOptions options_;
  const int listen_fd_;
  const int port_;
  absl::Notification stop_;
  std::thread acceptor_;
  std::vector<Connection> connections_;  // the acceptor's own

  mutable absl::Mutex mu_;
  std::map<std::string, std::vector<HttpFetch>> fetches_ ABSL_GUARDED_BY(mu_);
  HttpTotals totals_ ABSL_GUARDED_BY(mu_);
};

}  // namespace ssimd::fault_load

#endif  // SSIMD_TOOLS_FAULT_LOAD_SLOW_HTTP_SERVER_H_
