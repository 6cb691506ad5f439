#include "client/transport.h"

#include "gtest/gtest.h"

namespace ssimd {
namespace {

TEST(TransportTest, AutoUploadsEncodedFilesWhereTheServerTakesUploads) {
  const std::vector<std::string> encoded = {"src.y4m", "h264_960x540.mp4"};
  EXPECT_EQ(ChooseTransport(Transport::kAuto, encoded, true), Transport::kUpload);
  EXPECT_EQ(ChooseTransport(Transport::kAuto, encoded, false), Transport::kFrames);
}

TEST(TransportTest, AutoStreamsFramesOfRawAndY4mFiles) {
  // Uploading a raw file sends at least the bytes its frames would.
  const std::vector<std::string> raw = {"ref.yuv", "dis.Y4M"};
  EXPECT_EQ(ChooseTransport(Transport::kAuto, raw, true), Transport::kFrames);
}

TEST(TransportTest, AnExplicitChoiceIsKept) {
  const std::vector<std::string> encoded = {"src.mkv", "a.webm"};
  for (Transport t : {Transport::kServerFiles, Transport::kUpload, Transport::kFrames}) {
    EXPECT_EQ(ChooseTransport(t, encoded, false), t) << TransportName(t);
  }
}

TEST(TransportTest, UpscaleProtoCarriesEveryScalerAndTheRounding) {
  const std::pair<ScalerKind, v1::Scaler> kinds[] = {
      {ScalerKind::kBicubic, v1::SCALER_BICUBIC},   {ScalerKind::kBilinear, v1::SCALER_BILINEAR},
      {ScalerKind::kLanczos, v1::SCALER_LANCZOS},   {ScalerKind::kSpline, v1::SCALER_SPLINE},
      {ScalerKind::kNeighbor, v1::SCALER_NEIGHBOR},
  };
  for (const auto& [kind, proto] : kinds) {
    for (bool accurate : {false, true}) {
      const v1::UpscaleOptions upscale = UpscaleProto(ScalerChoice{kind, accurate});
      EXPECT_EQ(upscale.scaler(), proto) << ScalerKindName(kind);
      EXPECT_EQ(upscale.accurate_rounding(), accurate);
    }
  }
}

}  // namespace
}  // namespace ssimd
