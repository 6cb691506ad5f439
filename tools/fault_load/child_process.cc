#include "tools/fault_load/child_process.h"

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

extern char** environ;

namespace ssimd::fault_load {

std::string SelfExe() {
  char path[4096];
  const ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
  if (n <= 0) return "";
  path[n] = '\0';
  return path;
}

StreamOutcome AwaitVanishingChild(const std::vector<std::string>& argv, absl::Duration limit) {
  StreamOutcome out;
  out.started = absl::Now();
  std::vector<std::string> copy = argv;
  std::vector<char*> args;
  for (std::string& a : copy) args.push_back(a.data());
  args.push_back(nullptr);
  pid_t pid = 0;
  // posix_spawn, not fork: the parent has many gRPC threads, and a forked copy of them is unsafe.
  const int err = posix_spawn(&pid, argv[0].c_str(), nullptr, nullptr, args.data(), environ);
  if (err != 0) {
    out.child_error = absl::StrCat("cannot start ", argv[0], ": error ", err);
    out.finished = absl::Now();
    return out;
  }
  const absl::Time give_up = absl::Now() + limit;
  int wstatus = 0;
  for (;;) {
    const pid_t done = waitpid(pid, &wstatus, WNOHANG);
    if (done == pid) break;
    if (absl::Now() > give_up) {
      kill(pid, SIGKILL);
      waitpid(pid, &wstatus, 0);
      out.child_error = absl::StrCat("the child hung for ", absl::FormatDuration(limit),
                                     " (is the server answering?)");
      out.finished = absl::Now();
      return out;
    }
    absl::SleepFor(absl::Milliseconds(5));
  }
  out.finished = absl::Now();
  if (WIFSIGNALED(wstatus) && WTERMSIG(wstatus) == SIGKILL) {
    out.vanished = true;
  } else if (WIFEXITED(wstatus)) {
    out.child_error = absl::StrCat("the child exited with status ", WEXITSTATUS(wstatus),
                                   " (its stderr says why)");
  } else {
    out.child_error = "the child died of an unexpected signal";
  }
  return out;
}

}  // namespace ssimd::fault_load
