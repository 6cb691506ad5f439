#include "tools/fault_load/ffmpeg_command.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"

extern char** environ;

namespace ssimd::fault_load {
namespace {

std::string LogTail(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  std::string all = text.str();
  constexpr size_t kTail = 400;
  return all.size() > kTail ? all.substr(all.size() - kTail) : all;
}

}  // namespace

std::string FindFfmpeg() {
  const char* path = std::getenv("PATH");
  if (path == nullptr) return "";
  for (absl::string_view dir : absl::StrSplit(path, ':', absl::SkipEmpty())) {
    const std::string candidate = absl::StrCat(dir, "/ffmpeg");
    struct stat st;
    if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
        ::access(candidate.c_str(), X_OK) == 0) {
      return candidate;
    }
  }
  return "";
}

std::vector<std::string> EncodeArgv(const std::string& ffmpeg, const std::string& source,
                                    int source_width, int source_height, const EncodeSpec& spec,
                                    const std::string& out) {
  std::vector<std::string> argv = {ffmpeg, "-nostdin", "-v", "error", "-y", "-i", source};
  if (spec.width != source_width || spec.height != source_height) {
    argv.insert(argv.end(),
                {"-vf", absl::StrFormat("scale=%d:%d:flags=bicubic", spec.width, spec.height)});
  }
  argv.insert(argv.end(), {"-pix_fmt", "yuv420p"});
  argv.insert(argv.end(), spec.codec_args.begin(), spec.codec_args.end());
  argv.insert(argv.end(), {"-f", spec.muxer, out});
  return argv;
}

std::vector<std::string> DecodeToSourceSizeArgv(const std::string& ffmpeg,
                                                const std::string& rendition, int rendition_width,
                                                int rendition_height, int source_width,
                                                int source_height, const std::string& out_yuv) {
  std::vector<std::string> argv = {ffmpeg, "-nostdin", "-v", "error", "-y", "-i", rendition};
  if (rendition_width != source_width || rendition_height != source_height) {
    argv.insert(argv.end(), {"-vf", absl::StrFormat("scale=%d:%d:flags=bicubic+accurate_rnd",
                                                    source_width, source_height)});
  }
  argv.insert(argv.end(), {"-pix_fmt", "yuv420p", "-f", "rawvideo", out_yuv});
  return argv;
}

absl::Status RunCommand(const std::vector<std::string>& argv, absl::Duration timeout,
                        const std::string& log_path) {
  if (argv.empty()) return absl::InvalidArgumentError("no command");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  std::vector<std::string> copy = argv;
  std::vector<char*> args;
  for (std::string& a : copy) args.push_back(a.data());
  args.push_back(nullptr);
  pid_t pid = 0;
  // posix_spawn, not fork: this process runs gRPC threads, and a forked copy of them is unsafe.
  const int err = posix_spawn(&pid, argv[0].c_str(), &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (err != 0) return absl::InternalError(absl::StrCat("cannot start ", argv[0], ": error ", err));
  const absl::Time give_up = absl::Now() + timeout;
  int wstatus = 0;
  for (;;) {
    const pid_t done = ::waitpid(pid, &wstatus, WNOHANG);
    if (done == pid) break;
    if (absl::Now() > give_up) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &wstatus, 0);
      return absl::DeadlineExceededError(absl::StrCat(argv[0], " ran longer than ",
                                                      absl::FormatDuration(timeout)));
    }
    absl::SleepFor(absl::Milliseconds(10));
  }
  if (WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0) return absl::OkStatus();
  return absl::InternalError(absl::StrCat(argv[0], " failed (",
                                          WIFEXITED(wstatus)
                                              ? absl::StrCat("status ", WEXITSTATUS(wstatus))
                                              : std::string("killed by a signal"),
                                          "): ", LogTail(log_path)));
}

}  // namespace ssimd::fault_load
