#include "engine/io/y4m_header.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace ssimd {
namespace {

using ::testing::HasSubstr;

TEST(Y4mHeaderTest, ReadsSizeRateAndColorspace) {
  auto header = ParseY4mHeader("YUV4MPEG2 W1920 H1080 F24000:1001 Ip A1:1 C420p10 XYSCSS=420P10");
  ASSERT_TRUE(header.ok()) << header.status();
  EXPECT_EQ(header->geometry.width, 1920);
  EXPECT_EQ(header->geometry.height, 1080);
  EXPECT_EQ(header->geometry.bit_depth, 10);
  EXPECT_EQ(header->geometry.chroma, ChromaFormat::k420);
  EXPECT_EQ(header->frame_rate, "24000:1001");
}

TEST(Y4mHeaderTest, MissingColorspaceIs420At8Bits) {
  auto header = ParseY4mHeader("YUV4MPEG2 W17 H9");
  ASSERT_TRUE(header.ok()) << header.status();
  EXPECT_EQ(header->geometry.bit_depth, 8);
  EXPECT_EQ(header->geometry.chroma, ChromaFormat::k420);
}

TEST(Y4mHeaderTest, EveryLayoutAndDepth) {
  struct Case {
    const char* tag;
    ChromaFormat chroma;
    int depth;
  };
  for (const Case& c : {Case{"C420jpeg", ChromaFormat::k420, 8}, Case{"C422", ChromaFormat::k422, 8},
                        Case{"C422p12", ChromaFormat::k422, 12}, Case{"C444p16", ChromaFormat::k444, 16},
                        Case{"Cmono", ChromaFormat::k400, 8}, Case{"Cmono10", ChromaFormat::k400, 10}}) {
    auto header = ParseY4mHeader(std::string("YUV4MPEG2 W8 H8 ") + c.tag);
    ASSERT_TRUE(header.ok()) << c.tag << ": " << header.status();
    EXPECT_EQ(header->geometry.chroma, c.chroma) << c.tag;
    EXPECT_EQ(header->geometry.bit_depth, c.depth) << c.tag;
  }
}

TEST(Y4mHeaderTest, RefusesWhatCannotBeScored) {
  EXPECT_THAT(std::string(ParseY4mHeader("YUV4MPEG W8 H8").status().message()),
              HasSubstr("YUV4MPEG2"));
  EXPECT_THAT(std::string(ParseY4mHeader("YUV4MPEG2 W8").status().message()),
              HasSubstr("H (height)"));
  EXPECT_THAT(std::string(ParseY4mHeader("YUV4MPEG2 W0 H8").status().message()),
              HasSubstr("W (width) must be a positive integer"));
  EXPECT_THAT(std::string(ParseY4mHeader("YUV4MPEG2 W8 H8 C420p9").status().message()),
              HasSubstr("C420p9 is not supported"));
  EXPECT_THAT(std::string(ParseY4mHeader("YUV4MPEG2 W40000 H8").status().message()),
              HasSubstr("width must be between 1 and"));
  EXPECT_EQ(ParseY4mHeader("YUV4MPEG2 W8 H8 C444alpha").status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace ssimd
