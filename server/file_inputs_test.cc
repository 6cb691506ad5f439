#include "server/file_inputs.h"

#include <fcntl.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace ssimd {
namespace {

using ::testing::HasSubstr;

std::unique_ptr<VideoInput> Open(const std::string& path,
                                 const std::optional<Geometry>& geometry = std::nullopt) {
  auto input = OpenFileInput(::open(path.c_str(), O_RDONLY), path, "path", geometry);
  EXPECT_TRUE(input.ok()) << input.status();
  return input.ok() ? *std::move(input) : nullptr;
}

std::string Ladder(const std::string& name) { return "tests/data/ladder/" + name; }

// A 1920x1080 8-bit 4:2:0 .y4m header with `rate`, and no frames.
std::string SourceHeader(const std::string& rate, int depth = 8) {
  const std::string path =
      absl::StrCat(std::getenv("TEST_TMPDIR"), "/src_", depth, "_", rate.substr(0, 2), ".y4m");
  std::ofstream(path, std::ios::binary)
      << "YUV4MPEG2 W1920 H1080 F" << rate << " Ip A1:1 C420" << (depth == 10 ? "p10" : "jpeg")
      << "\n";
  return path;
}

TEST(FileInputsTest, UpscalesAnEncodedRenditionToTheSource) {
  auto source = Open(SourceHeader("24:1"));
  auto rendition = Open(Ladder("h264_640x360.mp4"));
  ASSERT_TRUE(source && rendition);
  ASSERT_TRUE(FitToReference(*source, "ref", *rendition, "dis", ScalerChoice()).ok());
  EXPECT_EQ(rendition->geometry().width, 1920);
  EXPECT_EQ(rendition->geometry().height, 1080);
  std::string luma;
  ASSERT_TRUE(*rendition->ReadLuma(&luma));
  EXPECT_EQ(luma.size(), 1920u * 1080);
}

TEST(FileInputsTest, RefusesDifferentFrameRatesNamingBoth) {
  auto source = Open(SourceHeader("25:1"));
  auto rendition = Open(Ladder("h264_640x360.mp4"));
  ASSERT_TRUE(source && rendition);
  absl::Status status = FitToReference(*source, "ref", *rendition, "dis", ScalerChoice());
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("runs at 24/1 frames per second"));
  EXPECT_THAT(status.message(), HasSubstr("at 25/1"));
}

TEST(FileInputsTest, RefusesDifferentBitDepths) {
  auto source = Open(SourceHeader("24:1"));
  auto rendition = Open(Ladder("hevc10_960x540.mkv"));
  ASSERT_TRUE(source && rendition);
  absl::Status status = FitToReference(*source, "ref", *rendition, "dis", ScalerChoice());
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("is 10-bit but ref"));
}

TEST(FileInputsTest, RawFilesAreNeverScaled) {
  auto source = Open(SourceHeader("24:1"));
  const std::string small = absl::StrCat(std::getenv("TEST_TMPDIR"), "/small.y4m");
  std::ofstream(small, std::ios::binary) << "YUV4MPEG2 W960 H540 F24:1 C420jpeg\n";
  auto rendition = Open(small);
  ASSERT_TRUE(source && rendition);
  absl::Status status = FitToReference(*source, "ref", *rendition, "dis", ScalerChoice());
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("same luma size and bit depth"));
}

TEST(FileInputsTest, GeometryGivenForAnEncodedFileMustMatchIt) {
  const std::string path = Ladder("h264_640x360.mp4");
  auto input = OpenFileInput(::open(path.c_str(), O_RDONLY), path, "reference_path",
                             Geometry{1920, 1080, 8, ChromaFormat::k420});
  EXPECT_EQ(input.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(input.status().message(), HasSubstr("640x360 8-bit (h264)"));
}

TEST(FileInputsTest, UpscaleOptions) {
  v1::UpscaleOptions options;
  options.set_scaler(v1::SCALER_LANCZOS);
  options.set_accurate_rounding(true);
  auto choice = ParseUpscale(options, "upscale");
  ASSERT_TRUE(choice.ok());
  EXPECT_EQ(SwsFlagsText(*choice), "lanczos+accurate_rnd");
  options.set_scaler(static_cast<v1::Scaler>(99));
  EXPECT_THAT(ParseUpscale(options, "upscale").status().message(),
              HasSubstr("upscale.scaler: unknown value 99"));
}

}  // namespace
}  // namespace ssimd
