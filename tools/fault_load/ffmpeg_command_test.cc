#include "tools/fault_load/ffmpeg_command.h"

#include <unistd.h>

#include <string>
#include <vector>

#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace ssimd::fault_load {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

TEST(EncodeArgvTest, ScalesOnlyWhenTheSizeDiffers) {
  const EncodeSpec spec{"mp4", 256, 144, {"-c:v", "libx264", "-crf", "30"}};
  EXPECT_THAT(EncodeArgv("/usr/bin/ffmpeg", "src.y4m", 320, 180, spec, "out.mp4"),
              ElementsAre("/usr/bin/ffmpeg", "-nostdin", "-v", "error", "-y", "-i", "src.y4m",
                          "-vf", "scale=256:144:flags=bicubic", "-pix_fmt", "yuv420p", "-c:v",
                          "libx264", "-crf", "30", "-f", "mp4", "out.mp4"));
  const EncodeSpec same{"webm", 320, 180, {"-c:v", "libvpx-vp9"}};
  EXPECT_THAT(EncodeArgv("ffmpeg", "src.y4m", 320, 180, same, "out.webm"),
              ElementsAre("ffmpeg", "-nostdin", "-v", "error", "-y", "-i", "src.y4m", "-pix_fmt",
                          "yuv420p", "-c:v", "libvpx-vp9", "-f", "webm", "out.webm"));
}

// The expected scores are computed from these bytes, so the upscale must be the server's:
// bicubic with accurate_rnd, to the source's size.
TEST(DecodeToSourceSizeArgvTest, UpscalesWithAccurateRounding) {
  EXPECT_THAT(DecodeToSourceSizeArgv("ffmpeg", "r.mkv", 256, 144, 320, 180, "r.yuv"),
              ElementsAre("ffmpeg", "-nostdin", "-v", "error", "-y", "-i", "r.mkv", "-vf",
                          "scale=320:180:flags=bicubic+accurate_rnd", "-pix_fmt", "yuv420p", "-f",
                          "rawvideo", "r.yuv"));
  EXPECT_THAT(DecodeToSourceSizeArgv("ffmpeg", "r.mp4", 320, 180, 320, 180, "r.yuv"),
              Not(testing::Contains("-vf")));
}

std::string LogPath() { return std::string(::testing::TempDir()) + "/command.log"; }

TEST(RunCommandTest, SucceedsAndFailsWithTheLogsTail) {
  EXPECT_TRUE(RunCommand({"/bin/sh", "-c", "exit 0"}, absl::Seconds(10), LogPath()).ok());
  const absl::Status failed = RunCommand({"/bin/sh", "-c", "echo something broke >&2; exit 3"},
                                         absl::Seconds(10), LogPath());
  EXPECT_EQ(failed.code(), absl::StatusCode::kInternal);
  EXPECT_THAT(failed.message(), HasSubstr("status 3"));
  EXPECT_THAT(failed.message(), HasSubstr("something broke"));
}

TEST(RunCommandTest, KillsACommandThatRunsTooLong) {
  const absl::Time start = absl::Now();
  const absl::Status status =
      RunCommand({"/bin/sleep", "30"}, absl::Milliseconds(200), LogPath());
  EXPECT_EQ(status.code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_LT(absl::Now() - start, absl::Seconds(10));
}

TEST(RunCommandTest, SaysWhenTheCommandCannotStart) {
  EXPECT_FALSE(RunCommand({"/nonexistent/ffmpeg"}, absl::Seconds(5), LogPath()).ok());
  EXPECT_FALSE(RunCommand({}, absl::Seconds(5), LogPath()).ok());
}

}  // namespace
}  // namespace ssimd::fault_load
