// The scaled pictures must be byte-identical to `ffmpeg -i R -vf scale=W:H:flags=F -pix_fmt P`
// on this machine, for every rendition of the ladder and every scaler: the test runs that command
// and compares whole pictures (all planes).
#include "engine/media/picture_scaler.h"

#include <fcntl.h>

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "engine/media/frame_planes.h"
#include "engine/media/pixel_formats.h"
#include "engine/media/test_media.h"
#include "engine/media/video_decoder.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace ssimd {
namespace {

using ::testing::HasSubstr;

constexpr int kSourceWidth = 1920;
constexpr int kSourceHeight = 1080;

// Decodes `file`, scales every picture to the ladder's source size in `format`, and compares the
// pictures with ffmpeg's. Returns the number of pictures compared.
int ExpectSameAsFfmpeg(const std::string& file, AVPixelFormat format, const ScalerChoice& choice) {
  const std::string path = LadderFile(file);
  absl::StatusOr<std::string> expected =
      RunFfmpegRaw({"-i", path, "-vf",
                    absl::StrCat("scale=", kSourceWidth, ":", kSourceHeight,
                                 ":flags=", SwsFlagsText(choice)),
                    "-pix_fmt", PixelFormatName(format)});
  EXPECT_TRUE(expected.ok()) << expected.status();
  if (!expected.ok()) return 0;
  auto decoder = VideoDecoder::OpenFd(::open(path.c_str(), O_RDONLY), path, DecodeLimits());
  EXPECT_TRUE(decoder.ok()) << decoder.status();
  if (!decoder.ok()) return 0;
  PictureScaler scaler(kSourceWidth, kSourceHeight, format, choice);
  size_t offset = 0;
  int pictures = 0;
  while (true) {
    absl::StatusOr<const AVFrame*> frame = (*decoder)->Next();
    EXPECT_TRUE(frame.ok()) << frame.status();
    if (!frame.ok() || *frame == nullptr) break;
    absl::StatusOr<const AVFrame*> scaled = scaler.Convert(**frame);
    EXPECT_TRUE(scaled.ok()) << scaled.status();
    if (!scaled.ok()) break;
    const std::string mine = PackedPicture(**scaled);
    EXPECT_LE(offset + mine.size(), expected->size()) << file << ": more pictures than ffmpeg";
    if (offset + mine.size() > expected->size()) break;
    const std::string theirs = expected->substr(offset, mine.size());
    const size_t luma_bytes = static_cast<size_t>((*scaled)->linesize[0] > 0 ? kSourceWidth : 0) *
                              kSourceHeight * (format == AV_PIX_FMT_YUV420P ? 1 : 2);
    EXPECT_TRUE(mine.compare(0, luma_bytes, theirs, 0, luma_bytes) == 0)
        << file << " " << SwsFlagsText(choice) << ": luma of picture " << pictures << " differs";
    EXPECT_TRUE(mine == theirs) << file << " " << SwsFlagsText(choice) << ": picture "
                                << pictures << " differs";
    offset += mine.size();
    ++pictures;
  }
  EXPECT_EQ(offset, expected->size()) << file << ": ffmpeg gave more pictures";
  return pictures;
}

class ScalerMatchesFfmpeg : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!HaveFfmpegCommand()) {
      GTEST_SKIP() << "the ffmpeg command is not installed (Debian package ffmpeg; "
                      "tools/install_deps.sh installs it): nothing to compare with";
    }
  }
};

TEST_F(ScalerMatchesFfmpeg, EveryEightBitRenditionWithBicubic) {
  for (const char* file : {"h264_1920x1080.mp4", "h264_1280x720.mp4", "h264_960x540.mp4",
                           "h264_640x360.mp4", "h264_426x240.mp4", "hevc_1280x720.mkv",
                           "vp9_960x540.webm"}) {
    EXPECT_EQ(ExpectSameAsFfmpeg(file, AV_PIX_FMT_YUV420P, ScalerChoice()), 24) << file;
  }
}

TEST_F(ScalerMatchesFfmpeg, TenBitRenditionsWithBicubic) {
  for (const char* file : {"hevc10_1920x1080.mkv", "hevc10_960x540.mkv"}) {
    EXPECT_EQ(ExpectSameAsFfmpeg(file, AV_PIX_FMT_YUV420P10LE, ScalerChoice()), 24) << file;
  }
}

TEST_F(ScalerMatchesFfmpeg, EveryScalerAndAccurateRounding) {
  for (ScalerKind kind : {ScalerKind::kBicubic, ScalerKind::kBilinear, ScalerKind::kLanczos,
                          ScalerKind::kSpline, ScalerKind::kNeighbor}) {
    for (bool accurate : {false, true}) {
      ScalerChoice choice{kind, accurate};
      EXPECT_EQ(ExpectSameAsFfmpeg("h264_426x240.mp4", AV_PIX_FMT_YUV420P, choice), 24);
    }
  }
  EXPECT_EQ(ExpectSameAsFfmpeg("hevc10_960x540.mkv", AV_PIX_FMT_YUV420P10LE,
                               ScalerChoice{ScalerKind::kLanczos, true}),
            24);
}

TEST(PictureScalerTest, PassesThroughPicturesAlreadyAtTheTarget) {
  const std::string path = LadderFile("h264_426x240.mp4");
  auto decoder = VideoDecoder::OpenFd(::open(path.c_str(), O_RDONLY), path, DecodeLimits());
  ASSERT_TRUE(decoder.ok()) << decoder.status();
  auto frame = (*decoder)->Next();
  ASSERT_TRUE(frame.ok() && *frame != nullptr);
  PictureScaler scaler(426, 240, AV_PIX_FMT_YUV420P, ScalerChoice());
  auto scaled = scaler.Convert(**frame);
  ASSERT_TRUE(scaled.ok());
  EXPECT_EQ(*scaled, *frame);
}

TEST(PictureScalerTest, ParsesScalerNames) {
  for (ScalerKind kind : {ScalerKind::kBicubic, ScalerKind::kBilinear, ScalerKind::kLanczos,
                          ScalerKind::kSpline, ScalerKind::kNeighbor}) {
    auto parsed = ParseScalerKind(ScalerKindName(kind));
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(*parsed, kind);
  }
  auto bad = ParseScalerKind("area");
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(bad.status().message(), HasSubstr("bicubic, bilinear, lanczos, spline or neighbor"));
  EXPECT_EQ(SwsFlagsText(ScalerChoice{ScalerKind::kSpline, true}), "spline+accurate_rnd");
}

}  // namespace
}  // namespace ssimd
