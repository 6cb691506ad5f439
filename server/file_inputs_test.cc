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

OpenedInput Open(const std::string& path, const std::optional<Geometry>& geometry = std::nullopt) {
  auto input = OpenFileInput(::open(path.c_str(), O_RDONLY), path, "path", geometry);
  EXPECT_TRUE(input.ok()) << input.status();
  return input.ok() ? *std::move(input) : OpenedInput();
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
  ASSERT_TRUE(source.input && rendition.input);
  ASSERT_TRUE(FitToReference(*source.input, "ref", rendition, "dis", ScalerChoice()).ok());
  EXPECT_EQ(rendition.input->geometry().width, 1920);
  EXPECT_EQ(rendition.input->geometry().height, 1080);
  std::string luma;
  ASSERT_TRUE(*rendition.input->ReadPlanes(&luma));
  EXPECT_EQ(luma.size(), 1920u * 1080);
}

TEST(FileInputsTest, AnEncodedFileComesAsItsDecodedInputTooARawOneDoesNot) {
  OpenedInput encoded = Open(Ladder("h264_640x360.mp4"));
  ASSERT_NE(encoded.input, nullptr);
  EXPECT_EQ(encoded.decoded, encoded.input.get());
  EXPECT_EQ(encoded.decoded->decoded_geometry().width, 640);
  OpenedInput raw = Open(SourceHeader("24:1"));
  ASSERT_NE(raw.input, nullptr);
  EXPECT_EQ(raw.decoded, nullptr);
}

TEST(FileInputsTest, RefusesDifferentFrameRatesNamingBoth) {
  auto source = Open(SourceHeader("25:1"));
  auto rendition = Open(Ladder("h264_640x360.mp4"));
  ASSERT_TRUE(source.input && rendition.input);
  absl::Status status = FitToReference(*source.input, "ref", rendition, "dis", ScalerChoice());
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("runs at 24/1 frames per second"));
  EXPECT_THAT(status.message(), HasSubstr("at 25/1"));
}

TEST(FileInputsTest, RefusesDifferentBitDepths) {
  auto source = Open(SourceHeader("24:1"));
  auto rendition = Open(Ladder("hevc10_960x540.mkv"));
  ASSERT_TRUE(source.input && rendition.input);
  absl::Status status = FitToReference(*source.input, "ref", rendition, "dis", ScalerChoice());
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("is 10-bit but ref"));
}

TEST(FileInputsTest, RawFilesAreNeverScaled) {
  auto source = Open(SourceHeader("24:1"));
  const std::string small = absl::StrCat(std::getenv("TEST_TMPDIR"), "/small.y4m");
  std::ofstream(small, std::ios::binary) << "YUV4MPEG2 W960 H540 F24:1 C420jpeg\n";
  auto rendition = Open(small);
  ASSERT_TRUE(source.input && rendition.input);
  absl::Status status = FitToReference(*source.input, "ref", rendition, "dis", ScalerChoice());
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

InputOpening WithBudget(PictureMemoryBudget* budget, int64_t* held) {
  InputOpening opening;
  opening.budget = budget;
  opening.held_by_call = held;
  return opening;
}

PictureMemoryBudget::Options Budget(int64_t bytes) {
  PictureMemoryBudget::Options options;
  options.capacity_bytes = bytes;
  options.wait = absl::Milliseconds(100);
  options.capacity_name = "--decoded_memory_budget";
  options.wait_name = "--decoded_memory_wait";
  return options;
}

TEST(FileInputsTest, AnInputHoldsItsReservationUntilDestroyed) {
  PictureMemoryBudget budget(Budget(int64_t{4} << 30));
  int64_t held = 0;
  const std::string path = Ladder("h264_640x360.mp4");
  InputOpening opening = WithBudget(&budget, &held);
  auto input = OpenFileInput(::open(path.c_str(), O_RDONLY), path, "reference_path",
                             std::nullopt, opening);
  ASSERT_TRUE(input.ok()) << input.status();
  EXPECT_GT(held, 0);
  EXPECT_EQ(budget.reserved(), held);
  EXPECT_EQ(input->input->reserved_bytes(), held);
  EXPECT_EQ(InputMemoryBytes(*input, opening), held);
  input->input.reset();
  EXPECT_EQ(budget.reserved(), 0);
}

TEST(FileInputsTest, ARenditionReservesItsScaledPictureAndTheCallsLumaPlanes) {
  const std::string path = Ladder("h264_640x360.mp4");
  auto input = OpenFileInput(::open(path.c_str(), O_RDONLY), path, "path", std::nullopt);
  ASSERT_TRUE(input.ok());
  InputOpening opening;
  const int64_t own = InputMemoryBytes(*input, opening);
  opening.scaled_to = Geometry{1920, 1080, 8, ChromaFormat::k420};
  const int64_t scaled = InputMemoryBytes(*input, opening);
  EXPECT_GE(scaled - own, 1920 * 1080 * 3 / 2);
  opening.luma_planes = [](const Geometry&) { return 3; };
  EXPECT_EQ(InputMemoryBytes(*input, opening) - scaled, 3 * 1920 * 1080);
}

TEST(FileInputsTest, AnInputOverTheBudgetIsRefusedNamingItsPicturesAndTheFlag) {
  PictureMemoryBudget budget(Budget(int64_t{16} << 20));
  int64_t held = 0;
  const std::string path = Ladder("h264_1920x1080.mp4");
  auto input = OpenFileInput(::open(path.c_str(), O_RDONLY), path, "distorted_path",
                             std::nullopt, WithBudget(&budget, &held));
  EXPECT_EQ(input.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(input.status().message(),
              HasSubstr("distorted_path: tests/data/ladder/h264_1920x1080.mp4 (h264, 1920x1080 "
                        "8-bit pictures) needs"));
  EXPECT_THAT(input.status().message(), HasSubstr("budget of 16.0 MiB"));
  EXPECT_THAT(input.status().message(), HasSubstr("(--decoded_memory_budget)"));
  EXPECT_EQ(held, 0);
  EXPECT_EQ(budget.reserved(), 0);
}

TEST(FileInputsTest, PicturesOverTheLimitAreRefusedNamingTheFlag) {
  const std::string path = Ladder("h264_1920x1080.mp4");
  InputOpening opening;
  opening.max_picture_pixels = 1280 * 720;
  auto input =
      OpenFileInput(::open(path.c_str(), O_RDONLY), path, "reference_path", std::nullopt, opening);
  EXPECT_EQ(input.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(input.status().message(),
              HasSubstr("reference_path: tests/data/ladder/h264_1920x1080.mp4: the container "
                        "declares a video of 1920x1080 = 2073600 pixels a picture, over this "
                        "server's limit of 921600 pixels a picture (--max_picture_pixels)"));
  const std::string y4m = absl::StrCat(std::getenv("TEST_TMPDIR"), "/big.y4m");
  std::ofstream(y4m, std::ios::binary) << "YUV4MPEG2 W16000 H16000 F24:1 C420jpeg\n";
  auto raw = OpenFileInput(::open(y4m.c_str(), O_RDONLY), y4m, "source_path", std::nullopt, opening);
  EXPECT_EQ(raw.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(raw.status().message(), HasSubstr("16000x16000 = 256000000 pixels a picture"));
  EXPECT_THAT(raw.status().message(), HasSubstr("(--max_picture_pixels)"));
}

TEST(FileInputsTest, TheSecondInputOfACallCountsWhatTheFirstHolds) {
  const std::string path = Ladder("h264_640x360.mp4");
  int64_t one = 0;
  {
    PictureMemoryBudget probe(Budget(int64_t{4} << 30));
    auto input = OpenFileInput(::open(path.c_str(), O_RDONLY), path, "a", std::nullopt,
                               WithBudget(&probe, &one));
    ASSERT_TRUE(input.ok());
  }
  // Room for one and a half: the second input of the same call could never fit, so it is
  // refused at once instead of waiting for what its own call holds.
  PictureMemoryBudget budget(Budget(one * 3 / 2));
  int64_t held = 0;
  auto first = OpenFileInput(::open(path.c_str(), O_RDONLY), path, "reference_path",
                             std::nullopt, WithBudget(&budget, &held));
  ASSERT_TRUE(first.ok()) << first.status();
  auto second = OpenFileInput(::open(path.c_str(), O_RDONLY), path, "distorted_path",
                              std::nullopt, WithBudget(&budget, &held));
  EXPECT_EQ(second.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(second.status().message(), HasSubstr("with the call's other inputs"));
  EXPECT_EQ(budget.counts().waited, 0u);
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
