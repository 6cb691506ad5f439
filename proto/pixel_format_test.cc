#include "proto/pixel_format.h"

#include "gtest/gtest.h"

namespace ssimd {
namespace {

TEST(PixelFormat, EveryChromaFormatRoundTrips) {
  for (ChromaFormat chroma :
       {ChromaFormat::k400, ChromaFormat::k420, ChromaFormat::k422, ChromaFormat::k444}) {
    const v1::PixelFormat proto = PixelFormatToProto(chroma);
    EXPECT_NE(proto, v1::PIXEL_FORMAT_UNSPECIFIED) << ChromaFormatName(chroma);
    EXPECT_EQ(PixelFormatFromProto(proto), chroma) << ChromaFormatName(chroma);
  }
}

TEST(PixelFormat, EveryApiValueIsMappedOrRefused) {
  const google::protobuf::EnumDescriptor* formats = v1::PixelFormat_descriptor();
  for (int i = 0; i < formats->value_count(); ++i) {
    EXPECT_TRUE(PixelFormatFromProto(formats->value(i)->number()).has_value())
        << formats->value(i)->name() << " has no ChromaFormat";
  }
  EXPECT_EQ(PixelFormatFromProto(v1::PIXEL_FORMAT_UNSPECIFIED), ChromaFormat::k420);
  EXPECT_FALSE(PixelFormatFromProto(12345).has_value());
  EXPECT_FALSE(PixelFormatFromProto(-1).has_value());
}

}  // namespace
}  // namespace ssimd
