// The real ssimd_server started as a child process on a free 127.0.0.1 port, for end-to-end
// cells: the service runs in its own process, as in production, so its processor time and the
// benchmark client's are measured apart.
#ifndef SSIMD_BENCH_SERVER_PROCESS_H_
#define SSIMD_BENCH_SERVER_PROCESS_H_

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace ssimd::bench {

class ServerProcess {
 public:
  // Starts `binary` with --address=127.0.0.1:<free port> and `flags`, its output going to
  // `log_path`, and waits up to `ready_within` for its health to turn SERVING. UNAVAILABLE (with
  // the tail of its log) when it exits or never becomes ready.
  static absl::StatusOr<std::unique_ptr<ServerProcess>> Start(const std::string& binary,
                                                              const std::vector<std::string>& flags,
                                                              const std::string& log_path,
                                                              absl::Duration ready_within);
  // Stops the server (SIGTERM, then SIGKILL after a few seconds) if it still runs.
  ~ServerProcess();
  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;

  const std::string& target() const { return target_; }
  pid_t pid() const { return pid_; }
  // Stops the server and returns its exit status description ("exited 0", "killed by signal 9").
  std::string Stop();

 private:
  ServerProcess(pid_t pid, std::string target) : pid_(pid), target_(std::move(target)) {}

  pid_t pid_;
  std::string target_;
  bool stopped_ = false;
};

// A TCP port on 127.0.0.1 that was free a moment ago (the kernel's pick); 0 on failure.
int PickFreeLoopbackPort();

// The last `max_bytes` of a file, for error messages.
std::string FileTail(const std::string& path, size_t max_bytes);

}  // namespace ssimd::bench

#endif  // SSIMD_BENCH_SERVER_PROCESS_H_
