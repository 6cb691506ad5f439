#include "engine/vmaf/model.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace ssimd {
namespace {

uint64_t Bits(double v) {
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof(bits));
  return bits;
}

VmafModelOptions Options(bool disable_clip, bool enable_transform = false) {
  VmafModelOptions options;
  options.disable_clip = disable_clip;
  options.enable_transform = enable_transform;
  return options;
}

std::string Replace(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << "the test's model has no \"" << from << "\"";
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

// Two features, two support vectors: the second lacks index 2 (libsvm's sparse zero) and has an
// index 3 beyond the features, which counts as the input being 0 there.
const char kSvm[] =
    "svm_type nu_svr\\nkernel_type rbf\\ngamma 0.5\\nnr_class 2\\ntotal_sv 2\\nrho -1.5\\nSV\\n"
    "4 1:0.5 2:0.25 \\n-2.5 1:0.75 3:0.125 \\n";

std::string TinyModel(const std::string& extra = "") {
  return std::string(R"({
  "param_dict": {"C": 4.0},
  "model_dict": {
    "model_type": "LIBSVMNUSVR",
    "norm_type": "linear_rescale",
    "feature_names": ["VMAF_integer_feature_adm2_score", "VMAF_integer_feature_motion2_score"],
    "slopes": [0.0078125, 2.0, 0.5],
    "intercepts": [2.0, -1.0, 0.25],
    "score_clip": [0.0, 100.0],)") +
         extra + R"(
    "model": ")" +
         kSvm + R"("
  }
})";
}

// The model above by its definition: rescale, two Gaussian kernels, the SVR sum, rescale back.
double TinyModelByHand(double adm2, double motion2) {
  const double x1 = 2.0 * adm2 + -1.0;
  const double x2 = 0.5 * motion2 + 0.25;
  double d1 = 0;
  d1 += (x1 - 0.5) * (x1 - 0.5);
  d1 += (x2 - 0.25) * (x2 - 0.25);
  double d2 = 0;
  d2 += (x1 - 0.75) * (x1 - 0.75);
  d2 += x2 * x2;
  d2 += 0.125 * 0.125;
  double sum = 0;
  sum += 4.0 * std::exp(-0.5 * d1);
  sum += -2.5 * std::exp(-0.5 * d2);
  sum -= -1.5;
  return (sum - 2.0) / 0.0078125;
}

TEST(VmafModel, ParsesTheTinyModel) {
  absl::StatusOr<VmafModel> model = ParseVmafModel(TinyModel(), "tiny");
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_EQ(model->name, "tiny");
  ASSERT_EQ(model->features.size(), 2u);
  EXPECT_EQ(model->features[0].name, "VMAF_integer_feature_adm2_score");
  EXPECT_EQ(model->features[0].output_name, "integer_adm2");
  EXPECT_EQ(model->features[0].extractor, "adm");
  EXPECT_EQ(model->features[1].output_name, "integer_motion2");
  EXPECT_EQ(model->features[1].extractor, "motion");
  EXPECT_EQ(model->features[1].slope, 0.5);
  EXPECT_EQ(model->features[1].intercept, 0.25);
  EXPECT_EQ(model->norm_type, VmafNormType::kLinearRescale);
  EXPECT_EQ(model->svr.support_vectors(), 2);
  EXPECT_EQ(model->svr.gamma, 0.5);
  EXPECT_EQ(model->svr.rho, -1.5);
  EXPECT_TRUE(model->has_clip);
  EXPECT_FALSE(model->transform.present);
}

TEST(VmafModel, PredictsAsTheFormulaSays) {
  absl::StatusOr<VmafModel> model = ParseVmafModel(TinyModel(), "tiny");
  ASSERT_TRUE(model.ok()) << model.status();
  const VmafModelOptions defaults;
  const VmafModelOptions no_clip = Options(/*disable_clip=*/true);
  int unclipped_inside = 0;
  for (double adm2 : {0.3, 0.55, 0.8, 0.95, 1.0}) {
    for (double motion2 : {0.0, 0.1, 1.7, 4.25}) {
      const double by_hand = TinyModelByHand(adm2, motion2);
      absl::StatusOr<double> raw = PredictVmaf(*model, no_clip, std::vector<double>{adm2, motion2});
      ASSERT_TRUE(raw.ok()) << raw.status();
      EXPECT_EQ(Bits(*raw), Bits(by_hand)) << adm2 << " " << motion2;
      const double clipped = by_hand < 0.0 ? 0.0 : (by_hand > 100.0 ? 100.0 : by_hand);
      absl::StatusOr<double> score =
          PredictVmaf(*model, defaults, std::vector<double>{adm2, motion2});
      ASSERT_TRUE(score.ok()) << score.status();
      EXPECT_EQ(Bits(*score), Bits(clipped)) << adm2 << " " << motion2;
      if (by_hand > 0.0 && by_hand < 100.0) ++unclipped_inside;
    }
  }
  // The inputs reach both sides of the clip and its inside.
  EXPECT_GT(unclipped_inside, 0);
  EXPECT_LT(unclipped_inside, 20);
}

TEST(VmafModel, PredictsFromNamedScores) {
  absl::StatusOr<VmafModel> model = ParseVmafModel(TinyModel(), "tiny");
  ASSERT_TRUE(model.ok()) << model.status();
  const VmafModelOptions no_clip = Options(/*disable_clip=*/true);
  absl::StatusOr<double> short_names =
      PredictVmaf(*model, no_clip,
                  std::map<std::string, double>{{"integer_adm2", 0.8}, {"integer_motion2", 1.7}});
  ASSERT_TRUE(short_names.ok()) << short_names.status();
  EXPECT_EQ(Bits(*short_names), Bits(TinyModelByHand(0.8, 1.7)));
  absl::StatusOr<double> long_names =
      PredictVmaf(*model, no_clip,
                  std::map<std::string, double>{{"VMAF_integer_feature_adm2_score", 0.8},
                                                {"VMAF_integer_feature_motion2_score", 1.7}});
  ASSERT_TRUE(long_names.ok()) << long_names.status();
  EXPECT_EQ(Bits(*long_names), Bits(*short_names));
  absl::StatusOr<double> missing =
      PredictVmaf(*model, no_clip, std::map<std::string, double>{{"integer_adm2", 0.8}});
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(missing.status().message().find("integer_motion2"), std::string::npos);
  absl::StatusOr<double> wrong_count = PredictVmaf(*model, no_clip, std::vector<double>{0.8});
  EXPECT_EQ(wrong_count.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(VmafModel, TransformIsOffUnlessEnabled) {
  // vmaf_v0.6.1's transform leaves out "enabled": it applies only with enable_transform.
  const std::string transform =
      R"("score_transform": {"p0": 1.5, "p1": 1.25, "p2": -0.0078125, "out_gte_in": "true"},)";
  absl::StatusOr<VmafModel> model = ParseVmafModel(TinyModel(transform), "tiny");
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_TRUE(model->transform.present);
  EXPECT_FALSE(model->transform.enabled);
  for (double adm2 : {0.55, 0.8, 0.95}) {
    const double y = TinyModelByHand(adm2, 1.7);
    double mapped = 0.0;
    mapped += 1.5;
    mapped += 1.25 * y;
    mapped += -0.0078125 * y * y;
    const double rectified = mapped < y ? y : mapped;
    absl::StatusOr<double> off =
        PredictVmaf(*model, Options(/*disable_clip=*/true), std::vector<double>{adm2, 1.7});
    ASSERT_TRUE(off.ok()) << off.status();
    EXPECT_EQ(Bits(*off), Bits(y));
    absl::StatusOr<double> on =
        PredictVmaf(*model, Options(/*disable_clip=*/true, /*enable_transform=*/true),
                    std::vector<double>{adm2, 1.7});
    ASSERT_TRUE(on.ok()) << on.status();
    EXPECT_EQ(Bits(*on), Bits(rectified)) << adm2;
  }
  absl::StatusOr<VmafModel> enabled =
      ParseVmafModel(TinyModel(R"("score_transform": {"enabled": true, "p1": 2.0},)"), "tiny");
  ASSERT_TRUE(enabled.ok()) << enabled.status();
  absl::StatusOr<double> doubled =
      PredictVmaf(*enabled, Options(/*disable_clip=*/true), std::vector<double>{0.8, 1.7});
  ASSERT_TRUE(doubled.ok()) << doubled.status();
  EXPECT_EQ(Bits(*doubled), Bits(0.0 + 2.0 * TinyModelByHand(0.8, 1.7)));
}

TEST(VmafModel, KnotsMapPiecewiseLinearly) {
  absl::StatusOr<VmafModel> model = ParseVmafModel(
      TinyModel(
          R"("score_transform": {"enabled": true, "knots": [[0, 0], [50, 60], [100, 100]]},)"),
      "tiny");
  ASSERT_TRUE(model.ok()) << model.status();
  for (double adm2 : {0.3, 0.55, 0.8, 0.95, 1.0}) {
    const double y = TinyModelByHand(adm2, 0.1);
    // Below 50 the segment from the origin, above it the segment to (100, 100), extended beyond
    // both ends.
    const double low_slope = (60.0 - 0.0) / 50.0;
    const double high_slope = (100.0 - 60.0) / (100.0 - 50.0);
    const double mapped =
        y <= 50.0 ? low_slope * y + 0.0 : high_slope * y + (60.0 - (50.0 * high_slope));
    absl::StatusOr<double> score =
        PredictVmaf(*model, Options(/*disable_clip=*/true), std::vector<double>{adm2, 0.1});
    ASSERT_TRUE(score.ok()) << score.status();
    EXPECT_EQ(Bits(*score), Bits(mapped)) << y;
  }
}

TEST(VmafModel, NumbersParseToTheNearestDouble) {
  // A long decimal and an exponent: the parse must round as strtod does.
  std::string text = Replace(TinyModel(), "gamma 0.5", "gamma 0.035000000000000003");
  text = Replace(text, "rho -1.5", "rho -1.2801585513962348e+00");
  text = Replace(text, "4 1:0.5 2:0.25", "4 1:0.5 2:2.220446e-16");
  absl::StatusOr<VmafModel> model = ParseVmafModel(text, "tiny");
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_EQ(Bits(model->svr.gamma), Bits(0.035000000000000003));
  EXPECT_EQ(Bits(model->svr.rho), Bits(-1.2801585513962348));
  EXPECT_EQ(Bits(model->svr.nodes[1].value), Bits(2.220446e-16));
}

TEST(VmafModel, FeatureOptionsNameTheFeatures) {
  // As libvmaf's tool prints vmaf_v0.6.1neg's features: the option's value as "%g", under the
  // option's alias; options at their default do not appear.
  absl::StatusOr<VmafModel> model = ParseVmafModel(
      TinyModel(R"("feature_opts_dicts": [{"adm_enhn_gain_limit": 1.0, "adm_csf_mode": 0}, {}],)"),
      "neg");
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_EQ(model->features[0].output_name, "integer_adm2_egl_1");
  ASSERT_EQ(model->features[0].options.size(), 2u);
  EXPECT_EQ(model->features[0].options[0], (VmafFeatureOption{"adm_enhn_gain_limit", "1"}));
  EXPECT_EQ(model->features[0].options[1], (VmafFeatureOption{"adm_csf_mode", "0"}));
  EXPECT_EQ(model->features[1].output_name, "integer_motion2");
  // The names still find the values.
  absl::StatusOr<double> score = PredictVmaf(
      *model, Options(/*disable_clip=*/true),
      std::map<std::string, double>{{"integer_adm2_egl_1", 0.8}, {"integer_motion2", 1.7}});
  ASSERT_TRUE(score.ok()) << score.status();
  EXPECT_EQ(Bits(*score), Bits(TinyModelByHand(0.8, 1.7)));
  // The default-option value is not taken for the renamed feature.
  EXPECT_EQ(PredictVmaf(*model, VmafModelOptions{},
                        std::map<std::string, double>{{"VMAF_integer_feature_adm2_score", 0.8},
                                                      {"integer_motion2", 1.7}})
                .status()
                .code(),
            absl::StatusCode::kNotFound);

  // Overloads as the tool's "-m" gives them, in the options' alphabetical order (the names the
  // tool printed for these overloads: tests/data/vmaf/model_v0.6.1_options.json).
  absl::StatusOr<VmafModelOptions> options = ParseVmafModelOptions(
      "path=m.json:name=ov:adm.adm_norm_view_dist=3.5:adm.adm_enhn_gain_limit=1.20:"
      "motion.motion_force_zero=true");
  ASSERT_TRUE(options.ok()) << options.status();
  ASSERT_TRUE(ApplyVmafModelOptions(*options, *model).ok());
  EXPECT_EQ(model->name, "ov");
  EXPECT_EQ(model->features[0].output_name, "integer_adm2_egl_1.2_nvd_3.5");
  EXPECT_EQ(model->features[1].output_name, "integer_motion2_force_0");

  absl::StatusOr<VmafModelOptions> out_of_range =
      ParseVmafModelOptions("adm.adm_enhn_gain_limit=0.5");
  ASSERT_TRUE(out_of_range.ok());
  const absl::Status refused = ApplyVmafModelOptions(*out_of_range, *model);
  EXPECT_EQ(refused.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(refused.message().find("adm_enhn_gain_limit"), std::string::npos) << refused;
  absl::StatusOr<VmafModelOptions> unknown = ParseVmafModelOptions("float_adm.x=1");
  ASSERT_TRUE(unknown.ok());
  EXPECT_EQ(ApplyVmafModelOptions(*unknown, *model).code(), absl::StatusCode::kInvalidArgument);
}

TEST(VmafModel, ParsesTheExtractorsOptionsOnce) {
  // What the backends read: the dictionaries' values, typed, with libvmaf's defaults elsewhere.
  absl::StatusOr<VmafModel> model = ParseVmafModel(
      TinyModel(R"("feature_opts_dicts": [{"adm_enhn_gain_limit": 1.0, "adm_csf_mode": 2},
                                         {"motion_blend_offset": 4.5, "motion_force_zero": true}],)"),
      "opts");
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_EQ(model->extractors.adm.adm_enhn_gain_limit, 1.0);
  EXPECT_EQ(model->extractors.adm.adm_csf_mode, 2);
  EXPECT_EQ(model->extractors.adm.adm_norm_view_dist, AdmOptions{}.adm_norm_view_dist);
  EXPECT_EQ(model->extractors.motion.blend_offset, 4.5);
  EXPECT_TRUE(model->extractors.motion.force_zero);
  EXPECT_EQ(model->extractors.vif.enhn_gain_limit, VifOptions{}.enhn_gain_limit);

  // An overload changes them with the names.
  absl::StatusOr<VmafModelOptions> options =
      ParseVmafModelOptions("path=m.json:motion.motion_force_zero=false:adm.adm_csf_mode=0");
  ASSERT_TRUE(options.ok()) << options.status();
  ASSERT_TRUE(ApplyVmafModelOptions(*options, *model).ok());
  EXPECT_FALSE(model->extractors.motion.force_zero);
  EXPECT_EQ(model->extractors.adm.adm_csf_mode, 0);
  EXPECT_EQ(model->extractors.adm.adm_enhn_gain_limit, 1.0);
}

TEST(VmafModel, RefusesOptionsItsExtractorsCannotRunAsGiven) {
  // A name the extractor does not have: refused rather than ignored.
  absl::StatusOr<VmafModel> unknown = ParseVmafModel(
      TinyModel(R"("feature_opts_dicts": [{"adm_enhn_gain_limt": 1.0}, {}],)"), "typo");
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(unknown.status().message().find("adm_enhn_gain_limt"), std::string::npos)
      << unknown.status();

  // Two features of one extractor with different options would need the extractor twice.
  std::string two_adm = Replace(
      TinyModel(R"("feature_opts_dicts": [{"adm_enhn_gain_limit": 1.0}, {}],)"),
      "\"VMAF_integer_feature_motion2_score\"]", "\"integer_adm_scale0\"]");
  absl::StatusOr<VmafModel> split = ParseVmafModel(two_adm, "split");
  EXPECT_EQ(split.status().code(), absl::StatusCode::kUnimplemented) << split.status();
  EXPECT_NE(split.status().message().find("integer_adm_scale0"), std::string::npos)
      << split.status();
  // The same options on both are one extractor.
  std::string same = Replace(
      TinyModel(R"("feature_opts_dicts": [{"adm_enhn_gain_limit": 1.0},
                                         {"adm_enhn_gain_limit": 1}],)"),
      "\"VMAF_integer_feature_motion2_score\"]", "\"integer_adm_scale0\"]");
  absl::StatusOr<VmafModel> joined = ParseVmafModel(same, "joined");
  ASSERT_TRUE(joined.ok()) << joined.status();
  EXPECT_EQ(joined->extractors.adm.adm_enhn_gain_limit, 1.0);
}

TEST(VmafModelOptions, ParsesTheToolsModelArgument) {
  absl::StatusOr<VmafModelOptions> options = ParseVmafModelOptions(
      "version=vmaf_v0.6.1:name=x:disable_clip:enable_transform=false:vif.vif_enhn_gain_limit=1.0");
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_EQ(options->version, "vmaf_v0.6.1");
  EXPECT_EQ(options->name, "x");
  EXPECT_TRUE(options->disable_clip);
  EXPECT_FALSE(options->enable_transform);
  ASSERT_EQ(options->overloads.size(), 1u);
  EXPECT_EQ(options->overloads[0].extractor, "vif");
  EXPECT_EQ(options->overloads[0].option, "vif_enhn_gain_limit");
  EXPECT_EQ(options->overloads[0].value, "1.0");
  EXPECT_EQ(ParseVmafModelOptions("path=a.json:bogus").status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ParseVmafModelOptions("path=a.json:novalue=1").status().code(),
            absl::StatusCode::kInvalidArgument);
}

struct BadModel {
  const char* what;
  std::string text;
  absl::StatusCode code;
  const char* message;  // a part of the message
};

std::vector<BadModel> BadModels() {
  const std::string ok = TinyModel();
  return {
      {"malformed JSON", "{\"model_dict\": {", absl::StatusCode::kInvalidArgument,
       "not valid JSON"},
      {"top level not an object", "[1, 2]", absl::StatusCode::kInvalidArgument, "top level"},
      {"no model_dict", R"({"param_dict": {}})", absl::StatusCode::kInvalidArgument,
       "no model_dict"},
      {"collection", R"({"0": {"model_dict": {}}, "1": {"model_dict": {}}})",
       absl::StatusCode::kUnimplemented, "collection"},
      {"model_dict not an object", R"({"model_dict": 3})", absl::StatusCode::kInvalidArgument,
       "model_dict is number"},
      {"no model_type", Replace(ok, R"("model_type": "LIBSVMNUSVR",)", ""),
       absl::StatusCode::kInvalidArgument, "no model_type"},
      {"unknown model_type", Replace(ok, "\"LIBSVMNUSVR\"", "\"XGBOOST\""),
       absl::StatusCode::kInvalidArgument, "unsupported model_type \"XGBOOST\""},
      {"bootstrap model_type", Replace(ok, "\"LIBSVMNUSVR\"", "\"BOOTSTRAP_LIBSVMNUSVR\""),
       absl::StatusCode::kUnimplemented, "bootstrap"},
      {"model_type not a string", Replace(ok, "\"LIBSVMNUSVR\"", "7"),
       absl::StatusCode::kInvalidArgument, "model_type is not a string"},
      {"unknown norm_type", Replace(ok, "\"linear_rescale\"", "\"zscore\""),
       absl::StatusCode::kInvalidArgument, "norm_type"},
      {"no feature_names", Replace(ok, "\"feature_names\"", "\"names\""),
       absl::StatusCode::kInvalidArgument, "no feature_names"},
      {"feature name not a string", Replace(ok, "\"VMAF_integer_feature_motion2_score\"", "2"),
       absl::StatusCode::kInvalidArgument, "feature_names[1]"},
      {"no features",
       Replace(ok, R"(["VMAF_integer_feature_adm2_score", "VMAF_integer_feature_motion2_score"])",
               "[]"),
       absl::StatusCode::kInvalidArgument, "0 features"},
      {"slopes short", Replace(ok, "[0.0078125, 2.0, 0.5]", "[0.0078125, 2.0]"),
       absl::StatusCode::kInvalidArgument, "slopes has 2 numbers"},
      {"intercepts long", Replace(ok, "[2.0, -1.0, 0.25]", "[2.0, -1.0, 0.25, 1]"),
       absl::StatusCode::kInvalidArgument, "intercepts has 4 numbers"},
      {"slope not a number", Replace(ok, "[0.0078125, 2.0, 0.5]", "[0.0078125, \"2\", 0.5]"),
       absl::StatusCode::kInvalidArgument, "slopes[1] is string"},
      {"no slopes", Replace(ok, "\"slopes\"", "\"slope\""), absl::StatusCode::kInvalidArgument,
       "no slopes"},
      {"clip not a pair", Replace(ok, "[0.0, 100.0]", "[0.0]"), absl::StatusCode::kInvalidArgument,
       "score_clip"},
      {"too many opts dicts", TinyModel(R"("feature_opts_dicts": [{}, {}, {}],)"),
       absl::StatusCode::kInvalidArgument, "3 entries for 2"},
      {"opts value an array", TinyModel(R"("feature_opts_dicts": [{"adm_csf_mode": [1]}],)"),
       absl::StatusCode::kInvalidArgument, "adm_csf_mode is array"},
      {"opt out of range", TinyModel(R"("feature_opts_dicts": [{"adm_csf_mode": 9}],)"),
       absl::StatusCode::kInvalidArgument, "outside 0..3"},
      {"null p0", TinyModel(R"("score_transform": {"p0": null},)"),
       absl::StatusCode::kInvalidArgument, "score_transform.p0 is null"},
      {"boolean out_gte_in", TinyModel(R"("score_transform": {"out_gte_in": true},)"),
       absl::StatusCode::kInvalidArgument, "out_gte_in"},
      {"too many knots",
       TinyModel(R"("score_transform": {"knots": [[0,0],[1,1],[2,2],[3,3],[4,4],[5,5],)"
                 R"([6,6],[7,7],[8,8],[9,9],[10,10]]},)"),
       absl::StatusCode::kInvalidArgument, "11 knots"},
      {"decreasing knots", TinyModel(R"("score_transform": {"knots": [[0,0],[10,5],[5,9]]},)"),
       absl::StatusCode::kInvalidArgument, "increasing"},
      {"chroma correction", TinyModel(R"("chroma_correction_parameter": 120.0,)"),
       absl::StatusCode::kUnimplemented, "chroma_correction_parameter"},
      {"model not a string", Replace(ok, std::string("\"") + kSvm + "\"", "[]"),
       absl::StatusCode::kInvalidArgument, "model_dict.model is not a string"},
      {"too few support vectors", Replace(ok, "total_sv 2", "total_sv 3"),
       absl::StatusCode::kInvalidArgument, "total_sv is 3 but the text has 2"},
      {"a billion support vectors", Replace(ok, "total_sv 2", "total_sv 1000000000"),
       absl::StatusCode::kInvalidArgument, "outside 1..65536"},
      {"unknown header key", Replace(ok, "gamma 0.5", "gama 0.5"),
       absl::StatusCode::kInvalidArgument, "unknown header key \"gama\""},
      {"no gamma", Replace(ok, "gamma 0.5\\n", ""), absl::StatusCode::kInvalidArgument, "no gamma"},
      {"gamma not a number", Replace(ok, "gamma 0.5", "gamma x"),
       absl::StatusCode::kInvalidArgument, "gamma needs"},
      {"linear kernel", Replace(ok, "kernel_type rbf", "kernel_type linear"),
       absl::StatusCode::kUnimplemented, "rbf"},
      {"classifier", Replace(ok, "svm_type nu_svr", "svm_type c_svc"),
       absl::StatusCode::kInvalidArgument, "nu_svr"},
      {"rho before nr_class",
       Replace(Replace(ok, "nr_class 2\\n", ""), "rho -1.5", "rho -1.5\\nnr_class 2"),
       absl::StatusCode::kInvalidArgument, "rho comes before nr_class"},
      {"no SV section", Replace(ok, "SV\\n4 1:0.5 2:0.25 \\n-2.5 1:0.75 3:0.125 \\n", ""),
       absl::StatusCode::kInvalidArgument, "SV"},
      {"bad coefficient", Replace(ok, "\\n4 1:0.5", "\\nfour 1:0.5"),
       absl::StatusCode::kInvalidArgument, "support vector 1: no coefficient"},
      {"bad index", Replace(ok, "1:0.75", "x:0.75"), absl::StatusCode::kInvalidArgument,
       "support vector 2"},
      {"negative index", Replace(ok, "1:0.75", "-1:0.75"), absl::StatusCode::kInvalidArgument,
       "support vector 2"},
      {"index without value", Replace(ok, "1:0.75", "1:"), absl::StatusCode::kInvalidArgument,
       "support vector 2"},
      {"value overflows", Replace(ok, "1:0.75", "1:1e999"), absl::StatusCode::kInvalidArgument,
       "support vector 2"},
  };
}

TEST(VmafModel, RefusesBadModels) {
  for (const BadModel& bad : BadModels()) {
    absl::StatusOr<VmafModel> model = ParseVmafModel(bad.text, "bad");
    ASSERT_FALSE(model.ok()) << bad.what;
    EXPECT_EQ(model.status().code(), bad.code) << bad.what << ": " << model.status();
    EXPECT_NE(model.status().message().find(bad.message), std::string::npos)
        << bad.what << ": " << model.status();
    EXPECT_NE(model.status().message().find("VMAF model bad"), std::string::npos)
        << bad.what << ": " << model.status();
  }
}

TEST(VmafModel, RefusesTooManyFeatures) {
  std::string names;
  for (int i = 0; i <= kMaxVmafModelFeatures; ++i) {
    names += std::string(i ? ", " : "") + "\"f" + std::to_string(i) + "\"";
  }
  const std::string text = Replace(
      TinyModel(), R"(["VMAF_integer_feature_adm2_score", "VMAF_integer_feature_motion2_score"])",
      "[" + names + "]");
  absl::StatusOr<VmafModel> model = ParseVmafModel(text, "wide");
  EXPECT_EQ(model.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(model.status().message().find("65 features"), std::string::npos) << model.status();
}

TEST(VmafModel, RefusesAnOversizedTextBeforeParsing) {
  const std::string huge(kMaxVmafModelFileBytes + 1, ' ');
  absl::StatusOr<VmafModel> model = ParseVmafModel(huge, "huge");
  EXPECT_EQ(model.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(model.status().message().find("at most"), std::string::npos) << model.status();
}

TEST(VmafModel, LoadsFilesAndNamesThemInErrors) {
  absl::StatusOr<VmafModel> missing = LoadVmafModelFile("/nonexistent/vmaf.json");
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(missing.status().message().find("/nonexistent/vmaf.json"), std::string::npos);

  const std::string dir = std::getenv("TEST_TMPDIR") ? std::getenv("TEST_TMPDIR") : "/tmp";
  const std::string good_path = dir + "/tiny_model.json";
  std::ofstream(good_path) << TinyModel();
  absl::StatusOr<VmafModel> good = LoadVmafModelFile(good_path);
  ASSERT_TRUE(good.ok()) << good.status();
  EXPECT_EQ(good->name, "vmaf");

  const std::string bad_path = dir + "/bad_model.json";
  std::ofstream(bad_path) << Replace(TinyModel(), "total_sv 2", "total_sv 5");
  absl::StatusOr<VmafModel> bad = LoadVmafModelFile(bad_path);
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find(bad_path), std::string::npos) << bad.status();
}

}  // namespace
}  // namespace ssimd
