#include "engine/media/pixel_formats.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace ssimd {
namespace {

using ::testing::HasSubstr;

TEST(PixelFormatsTest, RoundTripsEveryGeometry) {
  for (ChromaFormat chroma :
       {ChromaFormat::k400, ChromaFormat::k420, ChromaFormat::k422, ChromaFormat::k444}) {
    for (int depth : {8, 10, 12, 16}) {
      Geometry geometry{64, 48, depth, chroma};
      AVPixelFormat format = PixelFormatForGeometry(geometry);
      auto back = GeometryForPixelFormat(format, 64, 48);
      ASSERT_TRUE(back.ok()) << PixelFormatName(format) << ": " << back.status();
      EXPECT_EQ(back->bit_depth, depth) << PixelFormatName(format);
      EXPECT_EQ(back->chroma, chroma) << PixelFormatName(format);
      EXPECT_EQ(back->width, 64);
      EXPECT_EQ(back->height, 48);
    }
  }
}

TEST(PixelFormatsTest, FullRangeFormatsKeepTheirSamples) {
  auto geometry = GeometryForPixelFormat(AV_PIX_FMT_YUVJ420P, 8, 8);
  ASSERT_TRUE(geometry.ok());
  EXPECT_EQ(geometry->bit_depth, 8);
  EXPECT_EQ(geometry->chroma, ChromaFormat::k420);
}

TEST(PixelFormatsTest, RefusesPackedRgbBigEndianAndOddDepths) {
  for (AVPixelFormat format : {AV_PIX_FMT_RGB24, AV_PIX_FMT_NV12, AV_PIX_FMT_YUV420P10BE,
                               AV_PIX_FMT_YUV420P9LE, AV_PIX_FMT_YUVA420P, AV_PIX_FMT_YUYV422}) {
    auto geometry = GeometryForPixelFormat(format, 8, 8);
    EXPECT_EQ(geometry.status().code(), absl::StatusCode::kInvalidArgument)
        << PixelFormatName(format);
    EXPECT_THAT(geometry.status().message(), HasSubstr(PixelFormatName(format)));
  }
}

}  // namespace
}  // namespace ssimd
