// MediaInfo of the inputs: what a ladder report states about each rendition file.
#include <fcntl.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "engine/media/test_media.h"
#include "engine/media/video_input.h"
#include "gtest/gtest.h"

namespace ssimd {
namespace {

MediaInfo InfoOf(const std::string& file) {
  const std::string path = LadderFile(file);
  auto input = DecodedInput::Open(::open(path.c_str(), O_RDONLY), file, {});
  EXPECT_TRUE(input.ok()) << input.status();
  if (!input.ok()) return {};
  (*input)->ScaleTo(Geometry{1920, 1080, 8, ChromaFormat::k420}, ScalerChoice());
  return (*input)->media_info();
}

// Every ladder file holds 24 frames at 24/1, and each container (mp4's movie header, the
// Matroska/WebM segment info) states 1 s.
TEST(MediaInfoTest, EncodedFilesStateCodecSizeAndContainerDuration) {
  struct Case {
    const char* file;
    const char* codec;
    int width;
    int height;
  };
  for (const Case& c : {Case{"h264_426x240.mp4", "h264", 426, 240},
                        Case{"hevc_1280x720.mkv", "hevc", 1280, 720},
                        Case{"vp9_960x540.webm", "vp9", 960, 540}}) {
    SCOPED_TRACE(c.file);
    const MediaInfo info = InfoOf(c.file);
    EXPECT_EQ(info.codec, c.codec);
    EXPECT_EQ(info.size_bytes, std::filesystem::file_size(LadderFile(c.file)));
    ASSERT_TRUE(info.duration_seconds.has_value());
    EXPECT_NEAR(*info.duration_seconds, 1.0, 1e-6);
    // The size before ScaleTo, not the 1920x1080 the pictures come out at.
    EXPECT_EQ(info.width, c.width);
    EXPECT_EQ(info.height, c.height);
  }
}

TEST(MediaInfoTest, DecodingFromMemoryKnowsTheSizeToo) {
  auto bytes = ReadWholeFile(LadderFile("h264_640x360.mp4"));
  ASSERT_TRUE(bytes.ok());
  auto decoder = VideoDecoder::OpenMemory(*bytes, "h264_640x360.mp4", {});
  ASSERT_TRUE(decoder.ok()) << decoder.status();
  EXPECT_EQ((*decoder)->info().size_bytes, bytes->size());
  EXPECT_TRUE((*decoder)->info().duration_seconds.has_value());
}

TEST(MediaInfoTest, RawFilesAreRawvideoWithTheirSizeAndNoContainerDuration) {
  const std::string path = absl::StrCat(std::getenv("TEST_TMPDIR"), "/two.y4m");
  std::ofstream(path, std::ios::binary)
      << "YUV4MPEG2 W2 H2 F24:1 Cmono\nFRAME\nabcdFRAME\nefgh";
  auto input = OpenRawInput(::open(path.c_str(), O_RDONLY), "two.y4m", InputKind::kY4m, {});
  ASSERT_TRUE(input.ok()) << input.status();
  const MediaInfo info = (*input)->media_info();
  EXPECT_EQ(info.codec, "rawvideo");
  EXPECT_EQ(info.size_bytes, std::filesystem::file_size(path));
  EXPECT_FALSE(info.duration_seconds.has_value());
  EXPECT_EQ(info.width, 2);
  EXPECT_EQ(info.height, 2);
}

}  // namespace
}  // namespace ssimd
