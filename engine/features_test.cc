#include "engine/features.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace ssimd {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(ParseFeatureArgs, BareNamesGiveLibvmafDefaults) {
  auto parsed = ParseFeatureArgs({"float_ssim", "ssim"});
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  ASSERT_TRUE(parsed->float_ssim.has_value());
  EXPECT_EQ(parsed->float_ssim->scale, 0);
  EXPECT_FALSE(parsed->float_ssim->enable_db);
  EXPECT_FALSE(parsed->float_ssim->clip_db);
  EXPECT_FALSE(parsed->float_ssim->enable_lcs);
  ASSERT_TRUE(parsed->ssim.has_value());
  EXPECT_FALSE(parsed->ssim->enable_db);
  EXPECT_TRUE(parsed->ssim->exact) << "a bare ssim must be libvmaf's raster-order sum";
}

TEST(ParseFeatureArgs, ReadsEveryOption) {
  auto parsed = ParseFeatureArgs(
      {"float_ssim=enable_db=true:clip_db=true:scale=7:enable_lcs=1", "ssim=enable_db=1:fast_sum=true"});
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->float_ssim->scale, 7);
  EXPECT_TRUE(parsed->float_ssim->enable_db);
  EXPECT_TRUE(parsed->float_ssim->clip_db);
  EXPECT_TRUE(parsed->float_ssim->enable_lcs);
  EXPECT_TRUE(parsed->ssim->enable_db);
  EXPECT_FALSE(parsed->ssim->exact);

  auto off = ParseFeatureArgs({"float_ssim=enable_db=false:scale=0"});
  ASSERT_TRUE(off.ok());
  EXPECT_FALSE(off->float_ssim->enable_db);
  EXPECT_FALSE(off->ssim.has_value());
}

TEST(ParseFeatureArgs, ScaleRangeIsLibvmafs) {
  for (const char* ok : {"float_ssim=scale=0", "float_ssim=scale=1", "float_ssim=scale=10"}) {
    EXPECT_TRUE(ParseFeatureArgs({ok}).ok()) << ok;
  }
  for (const char* bad : {"float_ssim=scale=11", "float_ssim=scale=-1", "float_ssim=scale=two",
                          "float_ssim=scale=2.5", "float_ssim=scale= 3"}) {
    auto parsed = ParseFeatureArgs({bad});
    EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument) << bad;
    EXPECT_THAT(parsed.status().message(), HasSubstr("scale")) << bad;
    EXPECT_THAT(parsed.status().message(), HasSubstr("10")) << bad;
  }
}

TEST(ParseFeatureArgs, RefusesWhatLibvmafWouldIgnore) {
  struct Case {
    std::vector<std::string> args;
    const char* message;
  };
  const Case cases[] = {
      {{}, "no feature given"},
      {{"psnr_hvs"}, "unknown feature \"psnr_hvs\""},
      {{"psnr=min_sse=-1"}, "min_sse must be a number, 0 or more"},
      {{"psnr=min_sse=inf"}, "min_sse must be a number"},
      {{"psnr=min_sse=1e999"}, "min_sse must be a number"},
      {{"psnr=enable_mse=2"}, "enable_mse must be true, false, 1 or 0"},
      {{"float_ms_ssim=scale=2"}, "float_ms_ssim has no option \"scale\""},
      {{""}, "feature argument \"\" names no feature"},
      {{"float_ssim", "float_ssim=scale=2"}, "float_ssim is given more than once"},
      {{"ssim", "ssim"}, "ssim is given more than once"},
      {{"float_ssim=k1=0.02"}, "float_ssim has no option \"k1\""},
      {{"ssim=scale=2"}, "ssim has no option \"scale\""},
      {{"float_ssim=enable_db=yes"}, "enable_db must be true, false, 1 or 0, got \"yes\""},
      {{"float_ssim="}, "has '=' but no options"},
      {{"float_ssim=scale"}, "\"scale\" is not of the form key=value"},
      {{"float_ssim=scale=2:"}, "is not of the form key=value"},
      {{"float_ssim=scale=2::enable_db=1"}, "is not of the form key=value"},
      {{"float_ssim=scale=2:scale=3"}, "option \"scale\" is given more than once"},
      {{"ssim=enable_db="}, "not of the form key=value"},
      {{"ssim=fast_sum=true:exact=true"}, "options fast_sum and exact set the same thing"},
      {{"ssim=exact=false:fast_sum=false"}, "give only fast_sum"},
  };
  for (const Case& c : cases) {
    auto parsed = ParseFeatureArgs(c.args);
    EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument) << c.message;
    EXPECT_THAT(parsed.status().message(), HasSubstr(c.message));
  }
}

TEST(ParseFeatureArgs, ExactIsTheOlderInverseOfFastSum) {
  auto exact = ParseFeatureArgs({"ssim=exact=true"});
  ASSERT_TRUE(exact.ok()) << exact.status();
  EXPECT_TRUE(exact->ssim->exact);
  auto block_order = ParseFeatureArgs({"ssim=exact=false"});
  ASSERT_TRUE(block_order.ok()) << block_order.status();
  EXPECT_FALSE(block_order->ssim->exact);
  EXPECT_EQ(FormatFeatureArgs(*block_order), FormatFeatureArgs(*ParseFeatureArgs({"ssim=fast_sum=1"})));
}

TEST(ValidateFeatureSet, NeedsAFeatureAndAScaleInRange) {
  FeatureSet none;
  EXPECT_THAT(ValidateFeatureSet(none).message(), HasSubstr("no feature requested"));
  FeatureSet bad;
  bad.float_ssim = FloatSsimOptions{};
  bad.float_ssim->scale = 11;
  EXPECT_EQ(ValidateFeatureSet(bad).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(ValidateFeatureSet(bad).message(), HasSubstr("got 11"));
  bad.float_ssim->scale = -3;
  EXPECT_THAT(ValidateFeatureSet(bad).message(), HasSubstr("got -3"));
  FeatureSet ok;
  ok.ssim = IntegerSsimOptions{};
  EXPECT_TRUE(ValidateFeatureSet(ok).ok());
}

TEST(FormatFeatureArgs, RoundTripsThroughTheParser) {
  FeatureSet set;
  set.float_ssim = FloatSsimOptions{};
  set.float_ssim->scale = 4;
  set.float_ssim->clip_db = true;
  set.ssim = IntegerSsimOptions{};
  set.ssim->enable_db = true;
  const std::vector<std::string> args = FormatFeatureArgs(set);
  EXPECT_THAT(args, ElementsAre("float_ssim=scale=4:enable_db=false:clip_db=true:enable_lcs=false",
                                "ssim=enable_db=true:fast_sum=false"));
  auto parsed = ParseFeatureArgs(args);
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(FormatFeatureArgs(*parsed), args);
}

TEST(MetricNames, FollowTheRequestedOptions) {
  auto plain = ParseFeatureArgs({"float_ssim"});
  EXPECT_THAT(MetricNames(*plain), ElementsAre("float_ssim"));
  auto all = ParseFeatureArgs({"ssim", "float_ssim=enable_lcs=true"});
  EXPECT_THAT(MetricNames(*all),
              ElementsAre("float_ssim", "float_ssim_l", "float_ssim_c", "float_ssim_s", "ssim"));
}

}  // namespace
}  // namespace ssimd
