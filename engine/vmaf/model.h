// libvmaf's VMAF models on the host: the model JSON (libvmaf/src/read_json_model.c), its embedded
// libsvm text (libvmaf/src/svm.cpp) and one frame's prediction (libvmaf/src/predict.c), bit for
// bit: the features are rescaled, fed to libsvm's nu-SVR with an RBF kernel, and the result is
// rescaled back, optionally transformed and clipped, each step in libvmaf's binary64 order.
//
// A model also says how its features must be computed (its feature_opts_dicts, e.g.
// adm_enhn_gain_limit=1 for vmaf_v0.6.1neg) and, from that, under which name libvmaf reports each
// feature (integer_adm2_egl_1). The names follow libvmaf's rules for its integer adm, vif and
// motion extractors; features of other extractors are accepted only without options.
#ifndef SSIMD_ENGINE_VMAF_MODEL_H_
#define SSIMD_ENGINE_VMAF_MODEL_H_

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "engine/vmaf/extractor_options.h"

namespace ssimd {

// Bounds on what a model file may ask for, checked before anything is allocated from its counts.
// libvmaf's largest shipped file (a 21-model bootstrap collection) is 0.46 MB and a single model
// has at most 262 support vectors; these leave room for retrained models while refusing a hostile
// file that would make the service allocate gigabytes.
inline constexpr size_t kMaxVmafModelFileBytes = size_t{16} << 20;
inline constexpr int kMaxVmafModelSupportVectors = 1 << 16;
// libvmaf's own limits (read_json_model.c refuses more): features of one model, transform knots.
inline constexpr int kMaxVmafModelFeatures = 64;
inline constexpr int kMaxVmafModelKnots = 10;

// One option of a feature extractor: its libvmaf name and its value as libvmaf's dictionary holds
// it (a number normalised to "%g" of its binary32 value, "true"/"false", or a string as given),
// which is the text the extractor then parses.
struct VmafFeatureOption {
  std::string name;
  std::string value;

  friend bool operator==(const VmafFeatureOption& a, const VmafFeatureOption& b) {
    return a.name == b.name && a.value == b.value;
  }
};

struct VmafModelFeature {
  // As the model lists it, e.g. "VMAF_integer_feature_adm2_score".
  std::string name;
  // libvmaf's extractor that provides it ("adm", "vif", "motion"); "" for one this code does not
  // know (then `options` is empty).
  std::string extractor;
  // The options its extractor must run with, in the order they were set.
  std::vector<VmafFeatureOption> options;
  // The name libvmaf's JSON output gives its score, e.g. "integer_adm2", or "integer_adm2_egl_1"
  // when an option differs from the extractor's default.
  std::string output_name;
  // Linear rescale into the SVR's domain: slope * value + intercept.
  double slope = 1.0;
  double intercept = 0.0;
};

// One component of a support vector (libsvm's sparse vectors: absent indices are zero).
struct VmafSvmNode {
  int index = 0;
  double value = 0.0;
};

// libsvm's nu-SVR with an RBF kernel: sum_i coefficient_i * exp(-gamma * |x - sv_i|^2) - rho.
struct VmafSvr {
  double gamma = 0.0;
  double rho = 0.0;
  std::vector<double> coefficients;  // one per support vector
  // Support vector i is nodes[starts[i]] .. nodes[starts[i + 1] - 1], in the file's order.
  std::vector<size_t> starts;
  std::vector<VmafSvmNode> nodes;

  int support_vectors() const { return static_cast<int>(coefficients.size()); }
};

enum class VmafNormType { kNone, kLinearRescale };

// libvmaf's optional mapping of the denormalised prediction: a polynomial p0 + p1*y + p2*y*y (the
// terms given), then a piecewise-linear map through the knots, then rectification.
struct VmafScoreTransform {
  bool present = false;  // the model has a score_transform (enable_transform acts only then)
  bool enabled = false;  // its "enabled"; vmaf_v0.6.1 leaves it out, so it is off by default
  bool has_p0 = false, has_p1 = false, has_p2 = false;
  double p0 = 0.0, p1 = 0.0, p2 = 0.0;
  bool has_knots = false;
  std::vector<std::pair<double, double>> knots;  // (x, y)
  bool out_lte_in = false;                       // output <= input
  bool out_gte_in = false;                       // output >= input
};

struct VmafModel {
  // The key libvmaf reports the prediction under ("vmaf" unless the user names it).
  std::string name;
  // Where the model came from, for messages: the file path or the name it was parsed with.
  std::string source;
  std::vector<VmafModelFeature> features;
  // The options each of libvmaf's integer extractors runs with, from the features' dictionaries:
  // parsed and range-checked when the model is read, and again when ApplyVmafModelOptions
  // changes them. Every backend reads these.
  VmafExtractorOptions extractors;
  VmafNormType norm_type = VmafNormType::kNone;
  // Denormalisation of the prediction: (prediction - intercept) / slope.
  double slope = 1.0;
  double intercept = 0.0;
  bool has_clip = false;
  double clip_min = 0.0;
  double clip_max = 0.0;
  VmafScoreTransform transform;
  VmafSvr svr;
};

// A change of one extractor option for every feature of the model that extractor provides, as the
// vmaf tool's `-m ...:adm.adm_enhn_gain_limit=1.2` gives it.
struct VmafFeatureOverload {
  std::string extractor;  // e.g. "adm"
  std::string option;     // e.g. "adm_enhn_gain_limit"
  std::string value;      // as typed; numbers are normalised as libvmaf does
};

// What the vmaf tool's `--model` accepts for one model.
struct VmafModelOptions {
  std::string path;               // path=: a model file
  std::string version;            // version=: a built-in model, e.g. "vmaf_v0.6.1"
  std::string name;               // name=: the key of the prediction; "" keeps the model's
  bool disable_clip = false;      // disable_clip: no score_clip
  bool enable_transform = false;  // enable_transform: apply a score_transform the model disables
  std::vector<VmafFeatureOverload> overloads;
};

// Parses the `--model` argument of libvmaf's vmaf tool ("version=vmaf_v0.6.1:enable_transform",
// "path=m.json:name=x:vif.vif_enhn_gain_limit=1.0"). INVALID_ARGUMENT for an option the tool
// refuses (a bare key other than disable_clip/enable_transform, an overload without "fex.opt").
absl::StatusOr<VmafModelOptions> ParseVmafModelOptions(std::string_view spec);

// A model from its JSON text; `name` becomes the model's name and appears in messages.
// INVALID_ARGUMENT for malformed JSON, a wrong type, a missing key, counts that disagree, bad
// libsvm text or bad options; UNIMPLEMENTED for what libvmaf reads but this code does not
// (model collections such as vmaf_b_v0.6.3, other kernels, chroma correction, options of
// extractors it does not know).
absl::StatusOr<VmafModel> ParseVmafModel(std::string_view json_text, std::string name);

// ParseVmafModel on a file's contents, named "vmaf" as libvmaf names a model by default; messages
// name the file. NOT_FOUND when it cannot be opened, INVALID_ARGUMENT when it is too large.
absl::StatusOr<VmafModel> LoadVmafModelFile(const std::string& path);

// Applies the name and the feature overloads of `options` to `model` as libvmaf's tool does (an
// overload replaces the option for each feature its extractor provides and is ignored where no
// feature uses that extractor), and recomputes the output names. INVALID_ARGUMENT for an option
// value the extractor would refuse.
absl::Status ApplyVmafModelOptions(const VmafModelOptions& options, VmafModel& model);

// One frame's prediction from its feature values, in the order of model.features: libvmaf's
// binary64 result bit for bit, with the model's transform and clip as `options` leave them.
// INVALID_ARGUMENT when the count differs from the model's.
absl::StatusOr<double> PredictVmaf(const VmafModel& model, const VmafModelOptions& options,
                                   absl::Span<const double> feature_values);

// The same with the values looked up by each feature's output_name (libvmaf's JSON keys, e.g.
// "integer_adm2"), or failing that by its name; NOT_FOUND naming a feature that is missing.
absl::StatusOr<double> PredictVmaf(const VmafModel& model, const VmafModelOptions& options,
                                   const std::map<std::string, double>& scores);

}  // namespace ssimd

#endif  // SSIMD_ENGINE_VMAF_MODEL_H_
