// Test helpers: the ladder test files, whole-file reads, and the ffmpeg command's raw output.
#ifndef SSIMD_ENGINE_MEDIA_TEST_MEDIA_H_
#define SSIMD_ENGINE_MEDIA_TEST_MEDIA_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace ssimd {

// Path of a file in tests/data/ladder, relative to the test's working directory.
std::string LadderFile(const std::string& name);

absl::StatusOr<std::string> ReadWholeFile(const std::string& path);

// True when Debian's ffmpeg command can be run (the byte-identity checks need it).
bool HaveFfmpegCommand();

// Runs `ffmpeg -nostdin -loglevel error ARGS... -f rawvideo -` and returns what it wrote.
absl::StatusOr<std::string> RunFfmpegRaw(const std::vector<std::string>& args);

// Runs `ffmpeg -nostdin -loglevel error -y ARGS... OUTPUT` (e.g. to encode a test file).
absl::Status RunFfmpegToFile(const std::vector<std::string>& args, const std::string& output);

}  // namespace ssimd

#endif  // SSIMD_ENGINE_MEDIA_TEST_MEDIA_H_
