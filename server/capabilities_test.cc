// GetCapabilities' decode table from a DecodeCaps (the probe itself needs a device:
// engine/media:hw_decode_test).
#include "server/capabilities.h"

#include "engine/picture.h"
#include "gtest/gtest.h"
#include "server/service_context.h"

namespace ssimd {
namespace {

TEST(CapabilitiesTest, DecodeProfilesListEveryEntryAndTheEngines) {
  DecodeCaps caps;
  DecodeProfileCaps hevc10;
  hevc10.codec = "hevc";
  hevc10.bit_depth = 10;
  hevc10.max_width = 8192;
  hevc10.max_height = 8192;
  hevc10.min_width = 144;
  hevc10.min_height = 144;
  hevc10.max_macroblocks = 262144;
  hevc10.engines = 7;
  DecodeProfileCaps vp9 = hevc10;
  vp9.codec = "vp9";
  vp9.chroma = 444;
  vp9.bit_depth = 8;
  vp9.engines = 5;
  caps.Merge(hevc10);
  caps.Merge(vp9);

  v1::DecodeEngine engine;
  FillDecodeProfiles(caps, &engine);
  EXPECT_EQ(engine.engines(), 7u);
  EXPECT_EQ(engine.profiles_unknown_reason(), "");
  ASSERT_EQ(engine.profiles_size(), 2);
  const v1::DecodeProfile& first = engine.profiles(0);
  EXPECT_EQ(first.codec(), "hevc");
  EXPECT_EQ(first.chroma(), "4:2:0");
  EXPECT_EQ(first.bit_depth(), 10u);
  EXPECT_EQ(first.max_width(), 8192u);
  EXPECT_EQ(first.max_height(), 8192u);
  EXPECT_EQ(first.min_width(), 144u);
  EXPECT_EQ(first.min_height(), 144u);
  EXPECT_EQ(first.max_macroblocks(), 262144u);
  EXPECT_EQ(first.engines(), 7u);
  EXPECT_EQ(engine.profiles(1).codec(), "vp9");
  EXPECT_EQ(engine.profiles(1).chroma(), "4:4:4");
  EXPECT_EQ(engine.profiles(1).bit_depth(), 8u);
  EXPECT_EQ(engine.profiles(1).engines(), 5u);
}

TEST(CapabilitiesTest, AnUnknownTableSaysWhy) {
  DecodeCaps caps;
  caps.unknown_reason = "the NVIDIA driver's libnvcuvid.so.1 could not be loaded";
  v1::DecodeEngine engine;
  FillDecodeProfiles(caps, &engine);
  EXPECT_EQ(engine.profiles_size(), 0);
  EXPECT_EQ(engine.engines(), 0u);
  EXPECT_EQ(engine.profiles_unknown_reason(), caps.unknown_reason);
}

TEST(CapabilitiesTest, LimitsReportTheConfiguredPictureSize) {
  ServiceContext ctx;
  ctx.options.backend_policy = BackendPreference::kCpu;  // no dispatcher asked
  ctx.options.max_picture_pixels = 1920 * 1088;
  v1::Capabilities capabilities;
  FillCapabilities(ctx, &capabilities);
  EXPECT_EQ(capabilities.limits().max_pixels(), 1920u * 1088u);
  EXPECT_EQ(capabilities.limits().max_dimension(), static_cast<uint32_t>(kMaxDimension));
}

}  // namespace
}  // namespace ssimd
