#include "client/local_video.h"

#include <cstdlib>
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "engine/media/test_media.h"
#include "gtest/gtest.h"

namespace ssimd {
namespace {

int CountFrames(VideoInput& input, size_t expected_luma_bytes) {
  std::string luma;
  int frames = 0;
  while (true) {
    absl::StatusOr<bool> got = input.ReadLuma(&luma);
    EXPECT_TRUE(got.ok()) << got.status();
    if (!got.ok() || !*got) return frames;
    EXPECT_EQ(luma.size(), expected_luma_bytes);
    ++frames;
  }
}

TEST(LocalVideoTest, ASmallerRenditionIsScaledToTheReference) {
  auto pair = OpenLocalPair(LadderFile("h264_1920x1080.mp4"), LadderFile("vp9_960x540.webm"),
                            std::nullopt, ScalerChoice());
  ASSERT_TRUE(pair.ok()) << pair.status();
  EXPECT_EQ(pair->distorted->geometry().width, 1920);
  EXPECT_EQ(pair->distorted->geometry().height, 1080);
  EXPECT_EQ(CountFrames(*pair->distorted, 1920u * 1080), 24);
  EXPECT_EQ(CountFrames(*pair->reference, 1920u * 1080), 24);
}

TEST(LocalVideoTest, DifferentBitDepthsAreRefusedNamingTheFlags) {
  auto pair = OpenLocalPair(LadderFile("h264_1920x1080.mp4"), LadderFile("hevc10_960x540.mkv"),
                            std::nullopt, ScalerChoice());
  ASSERT_FALSE(pair.ok());
  EXPECT_EQ(pair.status().code(), absl::StatusCode::kInvalidArgument) << pair.status();
  EXPECT_NE(pair.status().message().find("-d"), absl::string_view::npos) << pair.status();
}

TEST(LocalVideoTest, AMissingFileIsNotFoundAndNamed) {
  auto input = OpenLocalVideo("no/such/file.mp4", std::nullopt);
  ASSERT_FALSE(input.ok());
  EXPECT_EQ(input.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(input.status().message().find("no/such/file.mp4"), absl::string_view::npos);
}

TEST(LocalVideoTest, ARawFileNeedsItsGeometry) {
  const std::string path = absl::StrCat(std::getenv("TEST_TMPDIR"), "/clip.yuv");
  std::ofstream(path, std::ios::binary) << std::string(6, 'x');
  auto without = OpenLocalVideo(path, std::nullopt);
  EXPECT_FALSE(without.ok());
  auto with = OpenLocalVideo(path, Geometry{2, 2, 8, ChromaFormat::k420});
  ASSERT_TRUE(with.ok()) << with.status();
  EXPECT_EQ(CountFrames(**with, 4), 1);
}

}  // namespace
}  // namespace ssimd
