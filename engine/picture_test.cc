#include "engine/picture.h"

#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace ssimd {
namespace {

using ::testing::HasSubstr;

Geometry Make(int w, int h, int bd = 8, ChromaFormat c = ChromaFormat::k420) {
  Geometry g;
  g.width = w;
  g.height = h;
  g.bit_depth = bd;
  g.chroma = c;
  return g;
}

TEST(ValidateGeometry, AcceptsSupportedPictures) {
  EXPECT_TRUE(ValidateGeometry(Make(1, 1)).ok());
  EXPECT_TRUE(ValidateGeometry(Make(3840, 2160, 10, ChromaFormat::k422)).ok());
  EXPECT_TRUE(ValidateGeometry(Make(kMaxDimension, 64, 16, ChromaFormat::k400)).ok());
  for (int bd : {8, 10, 12, 16}) EXPECT_TRUE(ValidateGeometry(Make(64, 64, bd)).ok()) << bd;
}

TEST(ValidateGeometry, RejectsZeroAndHugeSidesNamingTheField) {
  auto zero_w = ValidateGeometry(Make(0, 10));
  EXPECT_EQ(zero_w.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(zero_w.message(), HasSubstr("width"));
  EXPECT_THAT(zero_w.message(), HasSubstr("got 0"));
  auto negative_h = ValidateGeometry(Make(10, -4));
  EXPECT_THAT(negative_h.message(), HasSubstr("height"));
  auto huge = ValidateGeometry(Make(kMaxDimension + 1, 10));
  EXPECT_EQ(huge.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(huge.message(), HasSubstr("32768"));
}

TEST(ValidateGeometry, RejectsTooManyPixels) {
  auto status = ValidateGeometry(Make(32768, 32768));
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("pixels"));
  EXPECT_TRUE(ValidateGeometry(Make(16384, 16384)).ok());
}

TEST(ValidateGeometry, RejectsUnsupportedBitDepths) {
  for (int bd : {0, 1, 7, 9, 11, 14, 15, 17, 32}) {
    auto status = ValidateGeometry(Make(64, 64, bd));
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << bd;
    EXPECT_THAT(status.message(), HasSubstr("bit_depth must be 8, 10, 12 or 16"));
  }
}

TEST(ValidateGeometry, RejectsUnknownChromaFormat) {
  auto status = ValidateGeometry(Make(64, 64, 8, static_cast<ChromaFormat>(42)));
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("chroma"));
}

TEST(PictureSizes, BytesAndPeaks) {
  EXPECT_EQ(BytesPerSample(8), 1);
  EXPECT_EQ(BytesPerSample(10), 2);
  EXPECT_EQ(BytesPerSample(16), 2);
  EXPECT_EQ(PeakValue(8), 255u);
  EXPECT_EQ(PeakValue(10), 1023u);
  EXPECT_EQ(PeakValue(12), 4095u);
  EXPECT_EQ(PeakValue(16), 65535u);
  EXPECT_EQ(LumaBytes(Make(1920, 1080)), 1920u * 1080u);
  EXPECT_EQ(LumaBytes(Make(1920, 1080, 10)), 2u * 1920u * 1080u);
}

// Frame sizes as ffmpeg writes raw planar files (chroma sides rounded up); the reference clips'
// manifest lists these byte counts.
TEST(PictureSizes, FrameBytesMatchRawFileLayout) {
  EXPECT_EQ(FrameBytes(Make(576, 324)), 279936u);
  EXPECT_EQ(FrameBytes(Make(853, 481)), 853u * 481u + 2u * 427u * 241u);
  EXPECT_EQ(FrameBytes(Make(17, 9, 10)), 2u * (17u * 9u + 2u * 9u * 5u));
  EXPECT_EQ(FrameBytes(Make(640, 360, 10, ChromaFormat::k422)), 2u * (640u * 360u * 2u));
  EXPECT_EQ(FrameBytes(Make(640, 360, 8, ChromaFormat::k444)), 3u * 640u * 360u);
  EXPECT_EQ(FrameBytes(Make(5, 3, 8, ChromaFormat::k400)), 15u);
  EXPECT_EQ(FrameBytes(Make(1, 1)), 3u);
}

TEST(PictureSizes, ChromaFormatNames) {
  EXPECT_EQ(ChromaFormatName(ChromaFormat::k400), "400");
  EXPECT_EQ(ChromaFormatName(ChromaFormat::k420), "420");
  EXPECT_EQ(ChromaFormatName(ChromaFormat::k422), "422");
  EXPECT_EQ(ChromaFormatName(ChromaFormat::k444), "444");
}

TEST(MakeLumaView, ChecksTheBufferSize) {
  std::vector<uint8_t> bytes(64 * 48 * 2);
  auto view = MakeLumaView(Make(64, 48, 10), bytes, "reference luma");
  ASSERT_TRUE(view.ok()) << view.status();
  EXPECT_EQ(view->stride_bytes, 128u);
  EXPECT_EQ(view->width, 64);
  EXPECT_EQ(view->height, 48);
  EXPECT_EQ(view->bit_depth, 10);

  auto short_buffer = MakeLumaView(Make(64, 48, 10), absl::MakeSpan(bytes).subspan(1), "ref");
  EXPECT_EQ(short_buffer.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(short_buffer.status().message(), HasSubstr("ref has 6143 bytes"));
  EXPECT_THAT(short_buffer.status().message(), HasSubstr("6144"));

  auto wrong_depth = MakeLumaView(Make(64, 48, 8), bytes, "distorted luma");
  EXPECT_THAT(wrong_depth.status().message(), HasSubstr("needs exactly 3072 bytes"));

  auto bad_geometry = MakeLumaView(Make(0, 48), bytes, "x");
  EXPECT_THAT(bad_geometry.status().message(), HasSubstr("width"));
}

TEST(LumaView, ReadsLittleEndianWords) {
  const std::vector<uint8_t> bytes = {0x34, 0x02, 0xff, 0x03};
  auto view = MakeLumaView(Make(2, 1, 10), bytes, "luma");
  ASSERT_TRUE(view.ok());
  EXPECT_EQ(view->Sample(0, 0), 0x234u);
  EXPECT_EQ(view->Sample(1, 0), 0x3ffu);
}

TEST(CheckLumaView, AcceptsTheStreamsShapeAndAnyLargerStride) {
  std::vector<uint8_t> bytes(64 * 48 * 2 + 64);
  const LumaView view{bytes.data(), 128, 64, 48, 10};
  EXPECT_TRUE(CheckLumaView(Make(64, 48, 10), view, "reference").ok());
  const LumaView padded{bytes.data(), 129, 64, 47, 10};  // rows with a byte of padding
  EXPECT_TRUE(CheckLumaView(Make(64, 47, 10), padded, "reference").ok());
}

TEST(CheckLumaView, RefusesMissingDataOtherShapesAndShortStrides) {
  std::vector<uint8_t> bytes(64 * 48 * 2);
  const Geometry stream = Make(64, 48, 10);
  struct Case {
    LumaView view;
    const char* message;
  };
  const Case cases[] = {
      {{nullptr, 128, 64, 48, 10}, "distorted luma has no data"},
      {{bytes.data(), 128, 63, 48, 10}, "distorted luma is 63x48 10-bit but the stream's geometry "
                                        "is 64x48 10-bit"},
      {{bytes.data(), 128, 64, 47, 10}, "is 64x47 10-bit"},
      {{bytes.data(), 128, 64, 48, 12}, "is 64x48 12-bit"},
      {{bytes.data(), 127, 64, 48, 10}, "stride is 127 bytes, less than one 64-pixel row (128"},
  };
  for (const Case& c : cases) {
    const absl::Status status = CheckLumaView(stream, c.view, "distorted");
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << c.message;
    EXPECT_THAT(status.message(), HasSubstr(c.message));
  }
}

TEST(ValidateSampleRange, NamesTheFirstSampleAbovePeak) {
  std::vector<uint8_t> bytes(4 * 3 * 2, 0);
  auto view = MakeLumaView(Make(4, 3, 10), bytes, "luma");
  ASSERT_TRUE(view.ok());
  EXPECT_TRUE(ValidateSampleRange(*view, "reference luma").ok());
  // (x=2, y=1) = 1024, one above the 10-bit peak.
  bytes[(1 * 4 + 2) * 2] = 0x00;
  bytes[(1 * 4 + 2) * 2 + 1] = 0x04;
  auto status = ValidateSampleRange(*view, "reference luma");
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("reference luma sample at (x=2, y=1) is 1024"));
  EXPECT_THAT(status.message(), HasSubstr("1023"));
}

TEST(ValidateSampleRange, EveryWordIsInRangeAt8And16Bit) {
  std::vector<uint8_t> bytes(8, 0xff);
  auto v8 = MakeLumaView(Make(4, 2, 8), bytes, "luma");
  auto v16 = MakeLumaView(Make(2, 2, 16), bytes, "luma");
  ASSERT_TRUE(v8.ok() && v16.ok());
  EXPECT_TRUE(ValidateSampleRange(*v8, "luma").ok());
  EXPECT_TRUE(ValidateSampleRange(*v16, "luma").ok());
  auto v12 = MakeLumaView(Make(2, 2, 12), bytes, "luma");
  ASSERT_TRUE(v12.ok());
  EXPECT_THAT(ValidateSampleRange(*v12, "luma").message(), HasSubstr("(x=0, y=0) is 65535"));
}

}  // namespace
}  // namespace ssimd
