#include "server/request_parsing.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace ssimd {
namespace {

// The features of a request to a server without VMAF models.
absl::StatusOr<FeatureSet> ParseFeatures(const v1::Features& features, absl::string_view field) {
  return ssimd::ParseFeatures(features, field, VmafModelRegistry());
}

using ::testing::HasSubstr;
using ::testing::StartsWith;

v1::Geometry MakeGeometry(uint32_t w, uint32_t h, uint32_t depth,
                          v1::PixelFormat format = v1::PIXEL_FORMAT_420) {
  v1::Geometry g;
  g.set_width(w);
  g.set_height(h);
  g.set_bit_depth(depth);
  g.set_pixel_format(format);
  return g;
}

TEST(ParseGeometryTest, AcceptsEveryDepthAndLayout) {
  for (uint32_t depth : {8u, 10u, 12u, 16u}) {
    auto g = ParseGeometry(MakeGeometry(64, 36, depth, v1::PIXEL_FORMAT_444), "g");
    ASSERT_TRUE(g.ok()) << g.status();
    EXPECT_EQ(g->bit_depth, static_cast<int>(depth));
    EXPECT_EQ(g->chroma, ChromaFormat::k444);
  }
  auto unspecified = ParseGeometry(MakeGeometry(8, 8, 8, v1::PIXEL_FORMAT_UNSPECIFIED), "g");
  ASSERT_TRUE(unspecified.ok());
  EXPECT_EQ(unspecified->chroma, ChromaFormat::k420);
}

TEST(ParseGeometryTest, NamesTheFieldAndExpectedValues) {
  struct Case {
    v1::Geometry geometry;
    const char* message;
  };
  const Case cases[] = {
      {MakeGeometry(0, 8, 8), "config.geometry: width: expected 1 to 32768 pixels, got 0"},
      {MakeGeometry(8, 0, 8), "config.geometry: height: expected 1 to 32768 pixels, got 0"},
      {MakeGeometry(4000000000u, 8, 8), "width: expected 1 to 32768 pixels, got 4000000000"},
      {MakeGeometry(8, 8, 7), "config.geometry: bit_depth: expected 8, 10, 12 or 16, got 7"},
      {MakeGeometry(8, 8, 17), "bit_depth: expected 8, 10, 12 or 16, got 17"},
      {MakeGeometry(8, 8, 8, static_cast<v1::PixelFormat>(9)), "pixel_format: expected"},
      {MakeGeometry(32768, 32768, 8), "config.geometry: width x height must be at most"},
  };
  for (const Case& c : cases) {
    auto g = ParseGeometry(c.geometry, "config.geometry");
    ASSERT_FALSE(g.ok()) << c.message;
    EXPECT_EQ(g.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(g.status().message()), HasSubstr(c.message));
  }
}

TEST(ParseFeaturesTest, TypedAndArgumentForms) {
  v1::Features typed;
  typed.mutable_float_ssim()->set_scale(2);
  typed.mutable_float_ssim()->set_enable_db(true);
  auto f = ParseFeatures(typed, "features");
  ASSERT_TRUE(f.ok()) << f.status();
  ASSERT_TRUE(f->float_ssim.has_value());
  EXPECT_EQ(f->float_ssim->scale, 2);
  EXPECT_TRUE(f->float_ssim->enable_db);
  EXPECT_FALSE(f->ssim.has_value());

  v1::Features args;
  args.add_feature_args("float_ssim=enable_lcs=true");
  args.mutable_ssim()->set_enable_db(true);
  f = ParseFeatures(args, "features");
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_TRUE(f->float_ssim->enable_lcs);
  EXPECT_TRUE(f->ssim->enable_db);
}

TEST(ParseFeaturesTest, TypedSsimSumsInLibvmafsOrderUnlessFastSum) {
  v1::Features plain;
  plain.mutable_ssim();
  auto f = ParseFeatures(plain, "features");
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_TRUE(f->ssim->exact);

  v1::Features fast;
  fast.mutable_ssim()->set_fast_sum(true);
  f = ParseFeatures(fast, "features");
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_FALSE(f->ssim->exact);

  v1::Features older;  // the deprecated field alone asks for what is now the default
  older.mutable_ssim()->set_exact(true);
  f = ParseFeatures(older, "features");
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_TRUE(f->ssim->exact);

  v1::Features both;
  both.mutable_ssim()->set_exact(true);
  both.mutable_ssim()->set_fast_sum(true);
  const absl::Status status = ParseFeatures(both, "config.features").status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()), HasSubstr("set fast_sum only"));
}

TEST(ParseFeaturesTest, Refusals) {
  v1::Features none;
  EXPECT_THAT(std::string(ParseFeatures(none, "config.features").status().message()),
              StartsWith("config.features: no feature requested"));

  v1::Features scale;
  scale.mutable_float_ssim()->set_scale(11);
  EXPECT_THAT(std::string(ParseFeatures(scale, "f").status().message()),
              HasSubstr("float_ssim.scale: expected 0 (automatic) to 10, got 11"));

  v1::Features both;
  both.mutable_ssim();
  both.add_feature_args("ssim");
  EXPECT_THAT(std::string(ParseFeatures(both, "f").status().message()),
              HasSubstr("request it once"));

  v1::Features unknown;
  unknown.add_feature_args("psnr_hvs");
  auto status = ParseFeatures(unknown, "config.features").status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()), StartsWith("config.features.feature_args: "));
  EXPECT_THAT(std::string(status.message()), HasSubstr("psnr_hvs"));
}

// psnr's chroma (libvmaf's default) parses: ScoreClip and ScorePair frames may carry it (the
// calls whose inputs give luma only refuse it themselves). Pooling over frames is not served.
TEST(ParseFeaturesTest, PsnrParsesAndPoolingNeedsAClip) {
  v1::Features chroma;
  chroma.add_feature_args("psnr");
  absl::StatusOr<FeatureSet> with_chroma = ParseFeatures(chroma, "config.features");
  ASSERT_TRUE(with_chroma.ok()) << with_chroma.status();
  EXPECT_TRUE(with_chroma->psnr->enable_chroma);

  v1::Features pooled;
  pooled.add_feature_args("psnr=enable_chroma=false:enable_apsnr=true");
  absl::StatusOr<FeatureSet> with_pool = ParseFeatures(pooled, "f");
  ASSERT_TRUE(with_pool.ok()) << with_pool.status();
  EXPECT_TRUE(with_pool->psnr->enable_apsnr);
  EXPECT_THAT(std::string(CheckOnePairFeatures(*with_pool).message()),
              HasSubstr("ScoreClip"));

  v1::Features luma;
  luma.add_feature_args("psnr=enable_chroma=false:enable_mse=true:min_sse=0.25");
  luma.add_feature_args("float_ms_ssim");
  absl::StatusOr<FeatureSet> parsed = ParseFeatures(luma, "f");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->psnr->min_sse, 0.25);
  EXPECT_TRUE(parsed->psnr->enable_mse);
  EXPECT_TRUE(parsed->float_ms_ssim.has_value());
}

TEST(ParseBackendTest, PolicyApplies) {
  EXPECT_EQ(*ParseBackend(v1::BACKEND_AUTO, BackendPreference::kAuto, "b"),
            BackendPreference::kAuto);
  EXPECT_EQ(*ParseBackend(v1::BACKEND_AUTO, BackendPreference::kGpu, "b"),
            BackendPreference::kGpu);
  EXPECT_EQ(*ParseBackend(v1::BACKEND_CPU, BackendPreference::kGpu, "b"),
            BackendPreference::kCpu);
  EXPECT_EQ(*ParseBackend(v1::BACKEND_AUTO, BackendPreference::kCpu, "b"),
            BackendPreference::kCpu);
  EXPECT_EQ(ParseBackend(v1::BACKEND_GPU, BackendPreference::kCpu, "b").status().code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(ParseBackend(7, BackendPreference::kAuto, "config.backend")
                              .status()
                              .message()),
              HasSubstr("config.backend: expected BACKEND_AUTO, BACKEND_GPU or BACKEND_CPU"));
}

TEST(ParseClipOptionsTest, LabelsAndPercentiles) {
  ServiceOptions options;
  v1::ClipConfig config;
  config.mutable_features()->mutable_ssim();
  config.set_title_id("title-1");
  config.set_rung("1080p");
  (*config.mutable_labels())["encoder"] = "x264";
  auto settings = ParseClipOptions(config, options, "config");
  ASSERT_TRUE(settings.ok()) << settings.status();
  EXPECT_EQ(settings->title_id, "title-1");
  EXPECT_EQ(settings->labels.at("encoder"), "x264");
  EXPECT_EQ(settings->percentiles, options.default_percentiles);

  config.add_percentiles(10);
  config.add_percentiles(101);
  auto bad = ParseClipOptions(config, options, "config");
  EXPECT_THAT(std::string(bad.status().message()),
              HasSubstr("config.percentiles[1]: expected 0 to 100, got 101"));

  v1::ClipConfig long_label;
  long_label.mutable_features()->mutable_ssim();
  long_label.set_title_id(std::string(300, 'x'));
  EXPECT_THAT(std::string(ParseClipOptions(long_label, options, "config").status().message()),
              HasSubstr("config.title_id: at most 256 bytes"));

  v1::ClipConfig no_features;
  EXPECT_THAT(std::string(ParseClipOptions(no_features, options, "config").status().message()),
              HasSubstr("config.features: missing"));
}

TEST(SizeChecksTest, MessageLimitAndPlaneSizes) {
  const Geometry g8k{8192, 4320, 16, ChromaFormat::k420};
  EXPECT_TRUE(CheckFitsMessage(g8k, kDefaultMaxMessageBytes, "g").ok());
  const absl::Status over = CheckFitsMessage(g8k, 100 << 20, "config.geometry");
  EXPECT_EQ(over.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(over.message()), HasSubstr("--max_message_bytes"));

  const Geometry g{4, 2, 10, ChromaFormat::k420};
  EXPECT_TRUE(CheckPlaneSize(g, 16, "p").ok());
  EXPECT_THAT(std::string(CheckPlaneSize(g, 8, "frame.reference_luma").message()),
              HasSubstr("frame.reference_luma: expected 16 bytes (a 4x2 luma plane, 2 bytes "
                        "little-endian per sample, no padding), got 8"));
}

}  // namespace
}  // namespace ssimd
