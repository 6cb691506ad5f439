#include "engine/media/test_media.h"

#include <cstdio>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"

namespace ssimd {
namespace {

// Single quotes for the shell; test arguments hold no single quote themselves.
std::string Quoted(const std::string& arg) { return absl::StrCat("'", arg, "'"); }

std::string FfmpegCommand(const std::vector<std::string>& args) {
  std::string command = "ffmpeg -nostdin -hide_banner -loglevel error";
  for (const std::string& arg : args) absl::StrAppend(&command, " ", Quoted(arg));
  return command;
}

}  // namespace

std::string LadderFile(const std::string& name) { return "tests/data/ladder/" + name; }

absl::StatusOr<std::string> ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot open ", path));
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

bool HaveFfmpegCommand() { return std::system("ffmpeg -version >/dev/null 2>&1") == 0; }

absl::Status RunFfmpegToFile(const std::vector<std::string>& args, const std::string& output) {
  const std::string command = absl::StrCat(FfmpegCommand(args), " -y ", Quoted(output));
  const int rc = std::system(command.c_str());
  if (rc != 0) return absl::InternalError(absl::StrCat(command, " failed with status ", rc));
  return absl::OkStatus();
}

absl::StatusOr<std::string> RunFfmpegRaw(const std::vector<std::string>& args) {
  std::string command = FfmpegCommand(args);
  absl::StrAppend(&command, " -f rawvideo -");
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return absl::InternalError(absl::StrCat("cannot run ", command));
  std::string out;
  char buffer[1 << 16];
  size_t got;
  while ((got = std::fread(buffer, 1, sizeof(buffer), pipe)) > 0) out.append(buffer, got);
  const int rc = ::pclose(pipe);
  if (rc != 0) return absl::InternalError(absl::StrCat(command, " failed with status ", rc));
  return out;
}

}  // namespace ssimd
