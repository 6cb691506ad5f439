#include "bench/server_process.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "client/ssimd_client.h"

namespace ssimd::bench {
namespace {

std::string DescribeWaitStatus(int status) {
  if (WIFEXITED(status)) return absl::StrCat("exited ", WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return absl::StrCat("killed by signal ", WTERMSIG(status));
  return "stopped";
}

// Waits up to `limit` for the child to exit; true with its status when it did.
bool WaitFor(pid_t pid, absl::Duration limit, int* status) {
  const absl::Time until = absl::Now() + limit;
  while (true) {
    const pid_t done = waitpid(pid, status, WNOHANG);
    if (done == pid) return true;
    if (done < 0) {
      *status = 0;
      return true;  // not our child any more (already reaped)
    }
    if (absl::Now() >= until) return false;
    absl::SleepFor(absl::Milliseconds(20));
  }
}

}  // namespace

int PickFreeLoopbackPort() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return 0;
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = 0;
  socklen_t length = sizeof(address);
  int port = 0;
  if (bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0) {
    port = ntohs(address.sin_port);
  }
  close(fd);
  return port;
}

std::string FileTail(const std::string& path, size_t max_bytes) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream contents;
  contents << in.rdbuf();
  const std::string all = contents.str();
  return all.size() <= max_bytes ? all : all.substr(all.size() - max_bytes);
}

absl::StatusOr<std::unique_ptr<ServerProcess>> ServerProcess::Start(
    const std::string& binary, const std::vector<std::string>& flags, const std::string& log_path,
    absl::Duration ready_within) {
  if (access(binary.c_str(), X_OK) != 0) {
    return absl::NotFoundError(absl::StrCat(
        "server binary ", binary, " is missing or not executable; pass --server=PATH to "
        "ssimd_server, or --target=HOST:PORT for a server that already runs"));
  }
  // Another process could take the port between the pick and the server's bind: try a few.
  for (int attempt = 0; attempt < 3; ++attempt) {
    const int port = PickFreeLoopbackPort();
    if (port == 0) return absl::UnavailableError("no free TCP port on 127.0.0.1");
    const std::string target = absl::StrCat("127.0.0.1:", port);
    std::vector<std::string> args = {binary, absl::StrCat("--address=", target)};
    args.insert(args.end(), flags.begin(), flags.end());
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);

    const pid_t pid = fork();
    if (pid < 0) return absl::UnavailableError("fork failed");
    if (pid == 0) {
      const int log = open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
      if (log >= 0) {
        dup2(log, STDOUT_FILENO);
        dup2(log, STDERR_FILENO);
      }
      execv(binary.c_str(), argv.data());
      _exit(127);
    }
    auto process = std::unique_ptr<ServerProcess>(new ServerProcess(pid, target));
    SsimdClient client(grpc::CreateChannel(target, grpc::InsecureChannelCredentials()));
    const absl::Time until = absl::Now() + ready_within;
    while (absl::Now() < until) {
      int status = 0;
      if (waitpid(pid, &status, WNOHANG) == pid) {
        process->stopped_ = true;
        const std::string log = FileTail(log_path, 2000);
        if (log.find("bind") != std::string::npos || log.find("address") != std::string::npos) {
          break;  // probably lost the port race: try another port
        }
        return absl::UnavailableError(absl::StrCat("ssimd_server ", DescribeWaitStatus(status),
                                                   " before serving; its log ends:\n", log));
      }
      auto health = client.CheckHealth("", absl::Milliseconds(500));
      if (health.ok() && *health == grpc::health::v1::HealthCheckResponse::SERVING) {
        return process;
      }
      absl::SleepFor(absl::Milliseconds(50));
    }
    if (!process->stopped_) {
      const std::string how = process->Stop();
      return absl::UnavailableError(absl::StrCat(
          "ssimd_server did not report SERVING within ", absl::FormatDuration(ready_within),
          " (then ", how, "); its log ends:\n", FileTail(log_path, 2000)));
    }
  }
  return absl::UnavailableError(absl::StrCat("ssimd_server could not bind a loopback port; its "
                                             "log ends:\n",
                                             FileTail(log_path, 2000)));
}

std::string ServerProcess::Stop() {
  if (stopped_) return "already stopped";
  stopped_ = true;
  int status = 0;
  kill(pid_, SIGTERM);
  if (WaitFor(pid_, absl::Seconds(10), &status)) return DescribeWaitStatus(status);
  kill(pid_, SIGKILL);
  WaitFor(pid_, absl::Seconds(5), &status);
  return DescribeWaitStatus(status) + " (after SIGTERM did not stop it within 10 s)";
}

ServerProcess::~ServerProcess() { Stop(); }

}  // namespace ssimd::bench
