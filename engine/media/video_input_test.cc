#include "engine/media/video_input.h"

#include <fcntl.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "engine/media/test_media.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace ssimd {
namespace {

TEST(VideoInputTest, KindFollowsTheExtension) {
  EXPECT_EQ(InputKindForPath("a/b.Y4M"), InputKind::kY4m);
  EXPECT_EQ(InputKindForPath("clip.yuv"), InputKind::kRawYuv);
  EXPECT_EQ(InputKindForPath("clip.raw"), InputKind::kRawYuv);
  EXPECT_EQ(InputKindForPath("clip.mp4"), InputKind::kEncoded);
  EXPECT_EQ(InputKindForPath("clip"), InputKind::kEncoded);
}

TEST(VideoInputTest, DecodedInputScalesToTheTarget) {
  const std::string path = LadderFile("h264_426x240.mp4");
  auto input = DecodedInput::Open(::open(path.c_str(), O_RDONLY), "h264_426x240.mp4", {});
  ASSERT_TRUE(input.ok()) << input.status();
  EXPECT_EQ((*input)->decoded_geometry().width, 426);
  EXPECT_EQ((*input)->decoded_geometry().bit_depth, 8);
  EXPECT_TRUE(SameFrameRate((*input)->frame_rate(), {24, 1}));
  (*input)->ScaleTo(Geometry{1920, 1080, 8, ChromaFormat::k420}, ScalerChoice());
  ASSERT_TRUE((*input)->Skip(20).ok());
  std::string luma;
  int frames = 0;
  while (true) {
    auto got = (*input)->ReadLuma(&luma);
    ASSERT_TRUE(got.ok()) << got.status();
    if (!*got) break;
    EXPECT_EQ(luma.size(), 1920u * 1080);
    ++frames;
  }
  EXPECT_EQ(frames, 4);
}

TEST(VideoInputTest, Y4mRateComesFromTheHeader) {
  const std::string path = absl::StrCat(std::getenv("TEST_TMPDIR"), "/rate.y4m");
  std::ofstream(path, std::ios::binary) << "YUV4MPEG2 W2 H2 F30000:1001 Cmono\nFRAME\nabcd";
  auto input = OpenRawInput(::open(path.c_str(), O_RDONLY), "rate.y4m", InputKind::kY4m, {});
  ASSERT_TRUE(input.ok()) << input.status();
  EXPECT_EQ(FrameRateText((*input)->frame_rate()), "30000/1001");
  auto count = (*input)->CountRemaining(0);
  ASSERT_TRUE(count.ok());
  EXPECT_EQ(*count, 1u);
}

}  // namespace
}  // namespace ssimd
