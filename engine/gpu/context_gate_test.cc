#include "engine/gpu/context_gate.h"

#include <utility>

#include "absl/strings/str_format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace ssimd {
namespace {

using ::testing::HasSubstr;

FeatureSet FloatSsim(int scale) {
  FeatureSet features;
  features.float_ssim = FloatSsimOptions{};
  features.float_ssim->scale = scale;
  return features;
}

Geometry Size(int width, int height) {
  Geometry geometry;
  geometry.width = width;
  geometry.height = height;
  return geometry;
}

TEST(ContextGateTest, AcceptsEveryCommonSizeAtTheAutomaticScale) {
  for (auto [w, h] : {std::pair{576, 324},
                      {1920, 1080},
                      {3840, 2160},
                      {853, 481},
                      {11, 11},
                      {1280, 720},
                      {7680, 4320}}) {
    EXPECT_TRUE(CheckGpuContext(Size(w, h), FloatSsim(0)).ok()) << w << "x" << h;
  }
}

TEST(ContextGateTest, RefusesPlanesSmallerThanTheWindowWithTheSizes) {
  const absl::Status status = CheckGpuContext(Size(10, 64), FloatSsim(0));
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(status.message(), HasSubstr("10x64"));
  EXPECT_THAT(status.message(), HasSubstr("11x11"));
}

TEST(ContextGateTest, RefusesAForcedScaleThatDecimatesBelowTheWindow) {
  // 100x100 at scale 10 decimates to 10x10 (libvmaf's NaN case): the CPU computes it.
  const absl::Status status = CheckGpuContext(Size(100, 100), FloatSsim(10));
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(status.message(), HasSubstr("10x10 plane"));
  // 110x110 at scale 10 gives 11x11: the smallest plane the device takes.
  EXPECT_TRUE(CheckGpuContext(Size(110, 110), FloatSsim(10)).ok());
  // An odd side gains one sample (iqa_decimate_dim): 109 at scale 10 gives 11.
  EXPECT_TRUE(CheckGpuContext(Size(109, 109), FloatSsim(10)).ok());
}

TEST(ContextGateTest, RefusesScalesAbove128) {
  // The automatic scale reaches 128 at a 32640-pixel short side and 129 at 32896.
  EXPECT_EQ(GpuFloatSsimScale(Size(40000, 32639), FloatSsimOptions{}), 127);
  EXPECT_EQ(GpuFloatSsimScale(Size(40000, 32640), FloatSsimOptions{}), 128);
  EXPECT_EQ(GpuFloatSsimScale(Size(40000, 32896), FloatSsimOptions{}), 129);
  EXPECT_TRUE(CheckGpuFloatSsimLimits(40000, 32640, 128).ok());
  const absl::Status status = CheckGpuFloatSsimLimits(40000, 32896, 129);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(status.message(), HasSubstr("above 128"));
}

TEST(ContextGateTest, IntegerSsimRunsAtEverySize) {
  FeatureSet features;
  features.ssim = IntegerSsimOptions{};
  EXPECT_TRUE(CheckGpuContext(Size(1, 1), features).ok());
  EXPECT_TRUE(CheckGpuContext(Size(3840, 2160), features).ok());
}

FeatureSet MsSsim() {
  FeatureSet features;
  features.float_ms_ssim = FloatMsSsimOptions{};
  return features;
}

TEST(ContextGateTest, FloatMsSsimRunsAtEverySizeItIsDefinedFor) {
  for (auto [w, h] : {std::pair{176, 176},
                      {177, 177},
                      {191, 176},
                      {176, 20000},
                      {1920, 1080},
                      {1921, 1081},
                      {3840, 2160},
                      {7680, 4320}}) {
    const absl::Status status = CheckGpuContext(Size(w, h), MsSsim());
    EXPECT_TRUE(status.ok()) << w << "x" << h << ": " << status;
  }
  FeatureSet all = MsSsim();
  all.float_ms_ssim->enable_db = true;
  all.float_ms_ssim->clip_db = true;
  all.float_ms_ssim->enable_lcs = true;
  all.float_ssim = FloatSsimOptions{};
  all.ssim = IntegerSsimOptions{};
  EXPECT_TRUE(CheckGpuContext(Size(1920, 1080), all).ok());
}

TEST(ContextGateTest, FloatMsSsimBelowItsSizeIsInvalidAsOnTheCpu) {
  // libvmaf has no value below 176 on either side (five halvings rounding down must leave 11).
  for (auto [w, h] : {std::pair{175, 176}, {176, 175}, {175, 1080}, {64, 64}, {1, 1}}) {
    const absl::Status status = CheckGpuContext(Size(w, h), MsSsim());
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << w << "x" << h << ": " << status;
    EXPECT_THAT(status.message(), HasSubstr("176x176"));
    EXPECT_THAT(status.message(), HasSubstr(absl::StrFormat("%dx%d", w, h)));
  }
}

TEST(ContextGateTest, FloatMsSsimBelowItsSizeIsInvalidEvenWhereFloatSsimIsRefused) {
  // 100x100 at float_ssim scale 10 alone is a device refusal (the CPU would serve it), but with
  // float_ms_ssim no backend can serve the request: INVALID_ARGUMENT, not a fallback.
  FeatureSet features = FloatSsim(10);
  EXPECT_EQ(CheckGpuContext(Size(100, 100), features).code(),
            absl::StatusCode::kFailedPrecondition);
  features.float_ms_ssim = FloatMsSsimOptions{};
  EXPECT_EQ(CheckGpuContext(Size(100, 100), features).code(), absl::StatusCode::kInvalidArgument);
  // At a size both accept, every forced float_ssim scale runs beside it.
  for (int scale = 0; scale <= 10; ++scale) {
    features.float_ssim->scale = scale;
    EXPECT_TRUE(CheckGpuContext(Size(176, 176), features).ok()) << "scale " << scale;
  }
}

TEST(ContextGateTest, MalformedRequestsAreInvalidArgument) {
  EXPECT_EQ(CheckGpuContext(Size(0, 64), FloatSsim(0)).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(CheckGpuContext(Size(64, 64), FloatSsim(11)).code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace ssimd
