#include "engine/media/decode_caps.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace ssimd {
namespace {

using ::testing::HasSubstr;

DecodeProfileCaps Profile(std::string codec, int chroma, int depth, int max_w, int max_h) {
  DecodeProfileCaps p;
  p.codec = std::move(codec);
  p.chroma = chroma;
  p.bit_depth = depth;
  p.max_width = max_w;
  p.max_height = max_h;
  p.min_width = 48;
  p.min_height = 16;
  p.engines = 7;
  return p;
}

// The H200's table as its driver reported it for H.264 and HEVC (issue notes, docs/adr/0081).
DecodeCaps H200Like() {
  DecodeCaps caps;
  caps.Merge(Profile("h264", 420, 8, 4096, 4096));
  caps.Merge(Profile("hevc", 420, 8, 8192, 8192));
  caps.Merge(Profile("hevc", 420, 10, 8192, 8192));
  caps.profiles.back().max_macroblocks = 262144;
  return caps;
}

StreamShape Stream(std::string codec, int chroma, int depth, int w, int h) {
  return StreamShape{std::move(codec), chroma, depth, w, h};
}

TEST(DecodeCapsTest, StreamsInsideTheTableAreNotRefused) {
  const DecodeCaps caps = H200Like();
  EXPECT_EQ(EngineLimitsRefusal(caps, "nvdec", Stream("h264", 420, 8, 1920, 1088)), "");
  EXPECT_EQ(EngineLimitsRefusal(caps, "nvdec", Stream("h264", 420, 8, 4096, 4096)), "");
  EXPECT_EQ(EngineLimitsRefusal(caps, "nvdec", Stream("hevc", 420, 10, 3840, 2160)), "");
  EXPECT_EQ(EngineLimitsRefusal(caps, "nvdec", Stream("h264", 420, 8, 48, 16)), "");
}

TEST(DecodeCapsTest, EachLimitIsNamedWithTheStreamsValue) {
  const DecodeCaps caps = H200Like();
  EXPECT_EQ(EngineLimitsRefusal(caps, "nvdec", Stream("h264", 420, 8, 8192, 4320)),
            "nvdec decodes h264 4:2:0 8-bit up to 4096x4096; the stream is 8192x4320");
  EXPECT_EQ(EngineLimitsRefusal(caps, "nvdec", Stream("h264", 420, 8, 1024, 4112)),
            "nvdec decodes h264 4:2:0 8-bit up to 4096x4096; the stream is 1024x4112");
  EXPECT_EQ(EngineLimitsRefusal(caps, "nvdec", Stream("h264", 420, 8, 32, 32)),
            "nvdec decodes h264 4:2:0 8-bit from 48x16 up; the stream is 32x32");
  EXPECT_EQ(EngineLimitsRefusal(caps, "nvdec", Stream("h264", 444, 8, 640, 360)),
            "nvdec decodes h264 only as 4:2:0 8-bit; the stream is 4:4:4 8-bit");
  EXPECT_EQ(EngineLimitsRefusal(caps, "nvdec", Stream("hevc", 420, 12, 640, 360)),
            "nvdec decodes hevc only as 4:2:0 8-bit, 4:2:0 10-bit; the stream is 4:2:0 12-bit");
  EXPECT_EQ(EngineLimitsRefusal(caps, "nvdec", Stream("av1", 420, 8, 640, 360)),
            "nvdec on this device decodes no av1 (it decodes: h264, hevc)");
  // 8192x8192 has exactly the 10-bit profile's 262,144 macroblocks: allowed.
  EXPECT_EQ(EngineLimitsRefusal(caps, "nvdec", Stream("hevc", 420, 10, 8192, 8192)), "");
  DecodeCaps tighter = caps;
  tighter.profiles.back().max_macroblocks = 36864;  // 4096x2304
  EXPECT_EQ(EngineLimitsRefusal(tighter, "nvdec", Stream("hevc", 420, 10, 4096, 2320)),
            "nvdec decodes hevc 4:2:0 10-bit up to 36864 macroblocks per picture; the stream's "
            "4096x2320 has 37120");
}

TEST(DecodeCapsTest, AnUnknownTableRefusesNothing) {
  DecodeCaps caps;
  caps.unknown_reason = "libnvcuvid could not be loaded";
  EXPECT_FALSE(caps.known());
  EXPECT_EQ(EngineLimitsRefusal(caps, "nvdec", Stream("av1", 444, 12, 1 << 15, 1 << 15)), "");
  DecodeCaps empty;  // probed, decodes nothing
  EXPECT_THAT(EngineLimitsRefusal(empty, "vaapi", Stream("h264", 420, 8, 640, 360)),
              HasSubstr("(it decodes: nothing)"));
}

TEST(DecodeCapsTest, MergeWidensOneEntryPerLayout) {
  DecodeCaps caps;
  DecodeProfileCaps main = Profile("h264", 420, 8, 2048, 2048);
  main.max_macroblocks = 8192;
  DecodeProfileCaps high = Profile("h264", 420, 8, 4096, 2304);
  high.min_width = 16;
  high.max_macroblocks = 36864;
  high.engines = 0;
  caps.Merge(main);
  caps.Merge(high);
  caps.Merge(Profile("h264", 420, 10, 1024, 1024));
  ASSERT_EQ(caps.profiles.size(), 2u);
  EXPECT_EQ(caps.profiles[0].max_width, 4096);
  EXPECT_EQ(caps.profiles[0].max_height, 2304);
  EXPECT_EQ(caps.profiles[0].min_width, 16);
  EXPECT_EQ(caps.profiles[0].max_macroblocks, 36864);
  EXPECT_EQ(caps.profiles[0].engines, 7);
  EXPECT_EQ(caps.engines(), 7);
  DecodeProfileCaps unbounded = Profile("h264", 420, 8, 0, 0);
  caps.Merge(unbounded);
  EXPECT_EQ(caps.profiles[0].max_width, 0) << "a profile without a bound lifts it";
  EXPECT_EQ(caps.profiles[0].max_macroblocks, 0);
  EXPECT_EQ(EngineLimitsRefusal(caps, "vaapi", Stream("h264", 420, 8, 16384, 16384)), "");
  EXPECT_EQ(DecodeCaps().engines(), 0);
}

TEST(DecodeCapsTest, ChromaNames) {
  EXPECT_EQ(ChromaText(420), "4:2:0");
  EXPECT_EQ(ChromaText(422), "4:2:2");
  EXPECT_EQ(ChromaText(444), "4:4:4");
  EXPECT_EQ(ChromaText(400), "400");
}

}  // namespace
}  // namespace ssimd
