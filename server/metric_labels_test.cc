#include "server/metric_labels.h"

#include "gtest/gtest.h"

namespace ssimd {
namespace {

TEST(BackendLabelTest, SplitsBackendAndDevice) {
  EXPECT_EQ(ParseBackendLabel("cpu").backend, "cpu");
  EXPECT_EQ(ParseBackendLabel("cpu").device, "");
  const BackendLabel gpu = ParseBackendLabel("gpu:3");
  EXPECT_EQ(gpu.backend, "gpu");
  EXPECT_EQ(gpu.device, "3");
  // A malformed index names no device series rather than an unbounded one.
  EXPECT_EQ(ParseBackendLabel("gpu:x").device, "");
  EXPECT_EQ(ParseBackendLabel("gpu:123456").device, "");
  EXPECT_EQ(ParseBackendLabel("tpu").backend, "other");
}

TEST(FeatureSetLabelTest, NamesTheRequestedSet) {
  FeatureSet both;
  both.float_ssim = FloatSsimOptions{};
  both.ssim = IntegerSsimOptions{};
  EXPECT_EQ(FeatureSetLabel(both), "float_ssim+ssim");
  FeatureSet float_only;
  float_only.float_ssim = FloatSsimOptions{};
  EXPECT_EQ(FeatureSetLabel(float_only), "float_ssim");
  FeatureSet integer_only;
  integer_only.ssim = IntegerSsimOptions{};
  EXPECT_EQ(FeatureSetLabel(integer_only), "ssim");
  EXPECT_EQ(FeatureSetLabel(FeatureSet{}), "none");
}

TEST(FallbackReasonLabelTest, MapsFreeTextToFewCategories) {
  EXPECT_EQ(FallbackReasonLabel("gpu unavailable: ssimd was built without GPU support"),
            "gpu_unavailable");
  EXPECT_EQ(FallbackReasonLabel("GPU refused: scale 10 needs 12 GiB"), "context_refused");
  EXPECT_EQ(FallbackReasonLabel("gpu error: hipErrorIllegalAddress on device 1"), "device_error");
  EXPECT_EQ(FallbackReasonLabel("no device found"), "gpu_unavailable");
  EXPECT_EQ(FallbackReasonLabel("16-bit input is not supported on the device"),
            "context_refused");
  EXPECT_EQ(FallbackReasonLabel("device lost"), "device_error");
  EXPECT_EQ(FallbackReasonLabel("operator asked for it"), "other");
  EXPECT_EQ(FallbackReasonLabel(""), "other");
}

TEST(StatusCodeLabelTest, KeepsCanonicalNamesOnly) {
  EXPECT_EQ(StatusCodeLabel("OK"), "OK");
  EXPECT_EQ(StatusCodeLabel("RESOURCE_EXHAUSTED"), "RESOURCE_EXHAUSTED");
  EXPECT_EQ(StatusCodeLabel("UNAUTHENTICATED"), "UNAUTHENTICATED");
  EXPECT_EQ(StatusCodeLabel("ok"), "UNKNOWN");
  EXPECT_EQ(StatusCodeLabel("14"), "UNKNOWN");
}

TEST(MethodLabelTest, RefusesUnboundedNames) {
  EXPECT_EQ(MethodLabel("ScoreClip"), "ScoreClip");
  EXPECT_EQ(MethodLabel("grpc.health.v1.Health.Check"), "grpc.health.v1.Health.Check");
  EXPECT_EQ(MethodLabel("/ssimd.v1/x y"), "other");
  EXPECT_EQ(MethodLabel(std::string(65, 'a')), "other");
  EXPECT_EQ(MethodLabel(""), "other");
}

TEST(CodecLabelTest, KeepsFfmpegStyleNamesOnly) {
  EXPECT_EQ(CodecLabel("h264"), "h264");
  EXPECT_EQ(CodecLabel("rawvideo"), "rawvideo");
  EXPECT_EQ(CodecLabel("H264"), "other");
  EXPECT_EQ(CodecLabel("h264\"} 1"), "other");
  EXPECT_EQ(CodecLabel(std::string(33, 'a')), "other");
  EXPECT_EQ(CodecLabel(""), "other");
}

}  // namespace
}  // namespace ssimd
