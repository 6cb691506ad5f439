#include "server/rendition_report.h"

#include <fcntl.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "gtest/gtest.h"

namespace ssimd {
namespace {

MediaInfo Media(uint64_t size_bytes, std::optional<double> duration) {
  MediaInfo media;
  media.size_bytes = size_bytes;
  media.duration_seconds = duration;
  return media;
}

TEST(AverageBitrateTest, ContainerDurationFirstThenFramesOverRate) {
  // The container's duration wins over the frame count.
  EXPECT_EQ(AverageBitrate(Media(1000, 2.0), 24, FrameRate{24, 1}), 4000);
  EXPECT_EQ(AverageBitrate(Media(1000, std::nullopt), 48, FrameRate{24, 1}), 4000);
  EXPECT_DOUBLE_EQ(AverageBitrate(Media(1001, std::nullopt), 30, FrameRate{30000, 1001}),
                   1001 * 8.0 / (30 * 1001 / 30000.0));
}

TEST(AverageBitrateTest, UnknownDurationIsZeroNotInfinite) {
  EXPECT_EQ(AverageBitrate(Media(1000, std::nullopt), std::nullopt, FrameRate{24, 1}), 0);
  EXPECT_EQ(AverageBitrate(Media(1000, std::nullopt), 24, FrameRate{}), 0);  // raw .yuv
  EXPECT_EQ(AverageBitrate(Media(1000, std::nullopt), 0, FrameRate{24, 1}), 0);
  // A stated duration of 0 is no duration: the frames decide.
  EXPECT_EQ(AverageBitrate(Media(1000, 0.0), 24, FrameRate{24, 1}), 1000 * 8.0);
  EXPECT_EQ(AverageBitrate(Media(1000, 0.0), std::nullopt, FrameRate{24, 1}), 0);
  EXPECT_EQ(AverageBitrate(Media(~uint64_t{0}, 1e-310), std::nullopt, FrameRate{24, 1}), 0);
}

TEST(DescribeRenditionTest, EncodedFileFromItsContainer) {
  const std::string path = "tests/data/ladder/vp9_960x540.webm";
  auto input = DecodedInput::Open(::open(path.c_str(), O_RDONLY), "vp9_960x540.webm", {});
  ASSERT_TRUE(input.ok()) << input.status();
  (*input)->ScaleTo(Geometry{1920, 1080, 8, ChromaFormat::k420}, ScalerChoice());
  v1::RenditionSummary summary;
  DescribeRendition(**input, /*read_to_end=*/false, &summary);
  const uint64_t size = std::filesystem::file_size(path);
  EXPECT_EQ(summary.codec(), "vp9");
  EXPECT_EQ(summary.size_bytes(), size);
  EXPECT_EQ(summary.width(), 960u);
  EXPECT_EQ(summary.height(), 540u);
  // The WebM segment states 1 s (24 frames at 24/1).
  EXPECT_DOUBLE_EQ(summary.bitrate_bits_per_second(), size * 8.0);
}

TEST(DescribeRenditionTest, Y4mFromItsFramesAndRate) {
  const std::string path = std::string(std::getenv("TEST_TMPDIR")) + "/four.y4m";
  {
    std::ofstream out(path, std::ios::binary);
    out << "YUV4MPEG2 W2 H2 F2:1 Cmono\n";
    for (int i = 0; i < 4; ++i) out << "FRAME\nabcd";
  }
  auto input = OpenRawInput(::open(path.c_str(), O_RDONLY), "four.y4m", InputKind::kY4m, {});
  ASSERT_TRUE(input.ok()) << input.status();
  const double expected = std::filesystem::file_size(path) * 8.0 / 2.0;  // 4 frames at 2/s
  v1::RenditionSummary estimated;
  DescribeRendition(**input, /*read_to_end=*/false, &estimated);
  EXPECT_EQ(estimated.codec(), "rawvideo");
  EXPECT_EQ(estimated.bitrate_bits_per_second(), expected);
  ASSERT_TRUE((*input)->CountRemaining(0).ok());
  v1::RenditionSummary counted;
  DescribeRendition(**input, /*read_to_end=*/true, &counted);
  EXPECT_EQ(counted.bitrate_bits_per_second(), expected);
}

TEST(ToRenditionRecordTest, TakesMeansAndTheFifthPercentile) {
  v1::RenditionSummary summary;
  summary.set_rendition("540p");
  summary.set_codec("vp9");
  summary.set_width(960);
  summary.set_height(540);
  summary.set_bitrate_bits_per_second(1087712);
  summary.set_size_bytes(135964);
  v1::PooledScore& fs = (*summary.mutable_summary()->mutable_pooled())["float_ssim"];
  fs.set_mean(0.99);
  fs.set_harmonic_mean(0.98);
  for (double p : {1.0, 5.0, 50.0}) {
    v1::Percentile* percentile = fs.add_percentiles();
    percentile->set_percentile(p);
    percentile->set_value(p / 100);
  }
  (*summary.mutable_summary()->mutable_pooled())["ssim"].set_mean(0.9);
  const RenditionRecord record = ToRenditionRecord("autumn", summary);
  EXPECT_EQ(record.title, "autumn");
  EXPECT_EQ(record.rendition, "540p");
  EXPECT_EQ(record.codec, "vp9");
  EXPECT_EQ(record.width, 960);
  EXPECT_EQ(record.bitrate_bits_per_second, 1087712);
  EXPECT_EQ(record.size_bytes, 135964u);
  EXPECT_EQ(record.pooled.at("float_ssim").mean, 0.99);
  EXPECT_EQ(record.pooled.at("float_ssim").harmonic_mean, 0.98);
  EXPECT_EQ(record.pooled.at("float_ssim").p5, 0.05);
  EXPECT_FALSE(record.pooled.at("ssim").p5.has_value());  // no percentiles asked for
}

}  // namespace
}  // namespace ssimd
