#include "engine/vmaf/model.h"

#include <locale.h>
#include <stdlib.h>

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <limits>

#include "absl/strings/str_format.h"
#include "nlohmann/json.hpp"

namespace ssimd {
namespace {

using Json = nlohmann::ordered_json;

// ---------------------------------------------------------------------------------------------
// Number conversions as libvmaf's C library calls make them, independent of the process locale.

locale_t CLocale() {
  static const locale_t c_locale = newlocale(LC_ALL_MASK, "C", static_cast<locale_t>(0));
  return c_locale;
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

// Length of the decimal floating-point number at the start of `text` in the grammar an istream's
// `>> double` reads ([+-] digits [. digits] [e [+-] digits], at least one mantissa digit), or 0.
size_t DecimalNumberLength(std::string_view text) {
  size_t i = 0;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
  size_t digits = 0;
  while (i < text.size() && IsDigit(text[i])) ++i, ++digits;
  if (i < text.size() && text[i] == '.') {
    ++i;
    while (i < text.size() && IsDigit(text[i])) ++i, ++digits;
  }
  if (digits == 0) return 0;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    size_t j = i + 1;
    if (j < text.size() && (text[j] == '+' || text[j] == '-')) ++j;
    size_t exponent_digits = 0;
    while (j < text.size() && IsDigit(text[j])) ++j, ++exponent_digits;
    if (exponent_digits == 0) return 0;
    i = j;
  }
  return i;
}

// libsvm's model parser reads numbers with istream's `>> double`, which libstdc++ converts with
// strtod in the "C" locale: correctly rounded, an overflow refused, an underflow kept.
bool ConvertDecimal(std::string_view number, double& out) {
  const std::string text(number);
  errno = 0;
  char* end = nullptr;
  const double value = strtod_l(text.c_str(), &end, CLocale());
  if (end != text.c_str() + text.size()) return false;
  if (errno == ERANGE && std::isinf(value)) return false;
  out = value;
  return true;
}

bool ParseWholeDouble(std::string_view token, double& out) {
  return !token.empty() && DecimalNumberLength(token) == token.size() && ConvertDecimal(token, out);
}

// istream's `>> int`: an optional sign and decimal digits, refused when out of range.
size_t ParseIntPrefix(std::string_view text, int& out) {
  size_t i = 0;
  bool negative = false;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) negative = text[i++] == '-';
  const size_t first_digit = i;
  int64_t value = 0;
  while (i < text.size() && IsDigit(text[i])) {
    value = value * 10 + (text[i] - '0');
    if (value > int64_t{std::numeric_limits<int>::max()} + 1) return 0;
    ++i;
  }
  if (i == first_digit) return 0;
  if (negative) value = -value;
  if (value > std::numeric_limits<int>::max() || value < std::numeric_limits<int>::min()) return 0;
  out = static_cast<int>(value);
  return i;
}

bool ParseWholeInt(std::string_view token, int& out) {
  return !token.empty() && ParseIntPrefix(token, out) == token.size();
}

std::string FormatG(double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%g", value);
  return buffer;
}

// libvmaf's dictionary keeps a numeric option as "%g" of its binary32 value (dict.c converts with
// strtof): "1.0" becomes "1", and the extractor later parses that text.
std::string NormalisedNumber(const std::string& text) {
  char* end = nullptr;
  const double value = strtof_l(text.c_str(), &end, CLocale());
  if (value == 0 && end == text.c_str()) return text;
  return FormatG(value);
}

// libvmaf's tool normalises an overload's value when sscanf("%f %c") reads one number and nothing
// but white space follows it.
bool LooksNumeric(const std::string& text) {
  char* end = nullptr;
  strtof_l(text.c_str(), &end, CLocale());
  if (end == text.c_str()) return false;
  for (const char* p = end; *p != '\0'; ++p) {
    if (!IsSpace(*p)) return false;
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// libvmaf's extractors as far as the model needs them: which features each provides, and the
// options that change a feature's name (re-typed from libvmaf/src/feature/integer_adm.c,
// integer_vif.c and integer_motion.c: name, alias, type, default, range).

enum class OptionType { kBool, kInt, kDouble };

struct ExtractorOption {
  const char* name;
  const char* alias;  // null where libvmaf gives none
  OptionType type;
  double default_value;
  double min;
  double max;
  bool feature_param;  // part of the feature's name when not at its default
  // Where the parsed value goes in VmafExtractorOptions; null for `debug`, which only adds
  // outputs.
  void (*store)(VmafExtractorOptions&, double);
};

struct Extractor {
  const char* name;
  std::vector<const char*> features;
  std::vector<ExtractorOption> options;
};

const std::vector<Extractor>& Extractors() {
  static const std::vector<Extractor>* extractors = new std::vector<Extractor>{
      {"adm",
       {"VMAF_integer_feature_adm2_score", "VMAF_integer_feature_aim_score",
        "VMAF_integer_feature_adm3_score", "integer_adm_scale0", "integer_adm_scale1",
        "integer_adm_scale2", "integer_adm_scale3", "integer_adm", "integer_adm_num",
        "integer_adm_den", "integer_adm_num_scale0", "integer_adm_den_scale0",
        "integer_adm_num_scale1", "integer_adm_den_scale1", "integer_adm_num_scale2",
        "integer_adm_den_scale2", "integer_adm_num_scale3", "integer_adm_den_scale3"},
       {{"debug", nullptr, OptionType::kBool, 0, 0, 1, false, nullptr},
        {"adm_csf_scale", "scf", OptionType::kDouble, 1.0, 0.0, 50.0, true,
         [](VmafExtractorOptions& o, double v) { o.adm.adm_csf_scale = v; }},
        {"adm_csf_diag_scale", "scfd", OptionType::kDouble, 1.0, 0.0, 50.0, true,
         [](VmafExtractorOptions& o, double v) { o.adm.adm_csf_diag_scale = v; }},
        {"adm_dlm_weight", "dlmw", OptionType::kDouble, 0.5, 0.0, 1.0, true,
         [](VmafExtractorOptions& o, double v) { o.adm.adm_dlm_weight = v; }},
        {"adm_enhn_gain_limit", "egl", OptionType::kDouble, 100.0, 1.0, 100.0, true,
         [](VmafExtractorOptions& o, double v) { o.adm.adm_enhn_gain_limit = v; }},
        {"adm_norm_view_dist", "nvd", OptionType::kDouble, 3.0, 0.75, 24.0, true,
         [](VmafExtractorOptions& o, double v) { o.adm.adm_norm_view_dist = v; }},
        {"adm_ref_display_height", "rdh", OptionType::kInt, 1080, 1, 4320, true,
         [](VmafExtractorOptions& o, double v) {
           o.adm.adm_ref_display_height = static_cast<int>(v);
         }},
        {"adm_csf_mode", "csf", OptionType::kInt, 0, 0, 3, true,
         [](VmafExtractorOptions& o, double v) { o.adm.adm_csf_mode = static_cast<int>(v); }},
        {"adm_noise_weight", "nw", OptionType::kDouble, 0.03125, 0.0, 1500.0, true,
         [](VmafExtractorOptions& o, double v) { o.adm.adm_noise_weight = v; }},
        {"adm_skip_aim", nullptr, OptionType::kBool, 0, 0, 1, false,
         [](VmafExtractorOptions& o, double v) { o.adm.adm_skip_aim = v != 0; }},
        {"adm_skip_scale0", "ssz", OptionType::kBool, 0, 0, 1, true,
         [](VmafExtractorOptions& o, double v) { o.adm.adm_skip_scale0 = v != 0; }},
        {"adm_min_val", "min", OptionType::kDouble, 0.0, 0.0, 1.0, true,
         [](VmafExtractorOptions& o, double v) { o.adm.adm_min_val = v; }}}},
      {"vif",
       {"VMAF_integer_feature_vif_scale0_score", "VMAF_integer_feature_vif_scale1_score",
        "VMAF_integer_feature_vif_scale2_score", "VMAF_integer_feature_vif_scale3_score",
        "integer_vif", "integer_vif_num", "integer_vif_den", "integer_vif_num_scale0",
        "integer_vif_den_scale0", "integer_vif_num_scale1", "integer_vif_den_scale1",
        "integer_vif_num_scale2", "integer_vif_den_scale2", "integer_vif_num_scale3",
        "integer_vif_den_scale3"},
       {{"debug", nullptr, OptionType::kBool, 0, 0, 1, false, nullptr},
        {"vif_enhn_gain_limit", "egl", OptionType::kDouble, 100.0, 1.0, 100.0, true,
         [](VmafExtractorOptions& o, double v) { o.vif.enhn_gain_limit = v; }},
        {"vif_skip_scale0", "ssclz", OptionType::kBool, 0, 0, 1, true,
         [](VmafExtractorOptions& o, double v) { o.vif.skip_scale0 = v != 0; }}}},
      {"motion",
       {"VMAF_integer_feature_motion_sad_score", "VMAF_integer_feature_motion_score",
        "VMAF_integer_feature_motion2_score", "VMAF_integer_feature_motion3_score"},
       {{"motion_force_zero", "force_0", OptionType::kBool, 0, 0, 1, true,
         [](VmafExtractorOptions& o, double v) { o.motion.force_zero = v != 0; }},
        {"motion_blend_factor", "mbf", OptionType::kDouble, 1.0, 0.0, 1.0, true,
         [](VmafExtractorOptions& o, double v) { o.motion.blend_factor = v; }},
        {"motion_blend_offset", "mbo", OptionType::kDouble, 40.0, 0.0, 1000.0, true,
         [](VmafExtractorOptions& o, double v) { o.motion.blend_offset = v; }},
        {"motion_fps_weight", "mfw", OptionType::kDouble, 1.0, 0.0, 5.0, true,
         [](VmafExtractorOptions& o, double v) { o.motion.fps_weight = v; }},
        {"motion_max_val", "mmxv", OptionType::kDouble, 10000.0, 0.0, 10000.0, true,
         [](VmafExtractorOptions& o, double v) { o.motion.max_val = v; }},
        {"motion_five_frame_window", "mffw", OptionType::kBool, 0, 0, 1, true,
         [](VmafExtractorOptions& o, double v) { o.motion.five_frame_window = v != 0; }},
        {"motion_moving_average", "mma", OptionType::kBool, 0, 0, 1, true,
         [](VmafExtractorOptions& o, double v) { o.motion.moving_average = v != 0; }},
        {"debug", nullptr, OptionType::kBool, 0, 0, 1, false, nullptr}}},
  };
  return *extractors;
}

const Extractor* ExtractorOfFeature(const std::string& feature) {
  for (const Extractor& extractor : Extractors()) {
    for (const char* provided : extractor.features) {
      if (feature == provided) return &extractor;
    }
  }
  return nullptr;
}

// libvmaf's short names of its features (libvmaf/src/feature/alias.c), which its JSON output uses.
std::string FeatureAlias(const std::string& name) {
  static const std::map<std::string, std::string>* aliases = new std::map<std::string, std::string>{
      {"VMAF_feature_adm2_score", "adm2"},
      {"VMAF_feature_aim_score", "aim"},
      {"VMAF_feature_adm3_score", "adm3"},
      {"VMAF_feature_adm_scale0_score", "adm_scale0"},
      {"VMAF_feature_adm_scale1_score", "adm_scale1"},
      {"VMAF_feature_adm_scale2_score", "adm_scale2"},
      {"VMAF_feature_adm_scale3_score", "adm_scale3"},
      {"VMAF_feature_motion_score", "motion"},
      {"VMAF_feature_motion2_score", "motion2"},
      {"VMAF_feature_motion3_score", "motion3"},
      {"VMAF_feature_vif_scale0_score", "vif_scale0"},
      {"VMAF_feature_vif_scale1_score", "vif_scale1"},
      {"VMAF_feature_vif_scale2_score", "vif_scale2"},
      {"VMAF_feature_vif_scale3_score", "vif_scale3"},
      {"VMAF_integer_feature_adm2_score", "integer_adm2"},
      {"VMAF_integer_feature_aim_score", "integer_aim"},
      {"VMAF_integer_feature_adm3_score", "integer_adm3"},
      {"VMAF_integer_feature_motion_score", "integer_motion"},
      {"VMAF_integer_feature_motion2_score", "integer_motion2"},
      {"VMAF_integer_feature_motion3_score", "integer_motion3"},
      {"VMAF_integer_feature_vif_scale0_score", "integer_vif_scale0"},
      {"VMAF_integer_feature_vif_scale1_score", "integer_vif_scale1"},
      {"VMAF_integer_feature_vif_scale2_score", "integer_vif_scale2"},
      {"VMAF_integer_feature_vif_scale3_score", "integer_vif_scale3"},
      {"Cambi_feature_cambi_score", "cambi"},
      {"Speed_chroma_feature_speed_chroma_u_score", "speed_chroma_u"},
      {"Speed_chroma_feature_speed_chroma_v_score", "speed_chroma_v"},
      {"Speed_chroma_feature_speed_chroma_uv_score", "speed_chroma_uv"},
      {"Speed_temporal_feature_speed_temporal_score", "speed_temporal"},
  };
  const auto found = aliases->find(name);
  return found == aliases->end() ? name : found->second;
}

// The option's value as the extractor parses its text (libvmaf/src/opt.c: atof/atoi with a range
// check, "true"/"false"), or INVALID_ARGUMENT where libvmaf's extractor would refuse to start.
absl::StatusOr<double> ExtractorValue(const ExtractorOption& option, const std::string& text) {
  auto refuse = [&](std::string_view why) {
    return absl::InvalidArgumentError(
        absl::StrFormat("option %s=\"%s\": %s", option.name, text, why));
  };
  switch (option.type) {
    case OptionType::kBool:
      if (text == "true") return 1.0;
      if (text == "false") return 0.0;
      return refuse("must be true or false");
    case OptionType::kInt: {
      const int value = atoi(text.c_str());
      if (value == 0 && text[0] != '0') return refuse("not an integer");
      if (value < option.min || value > option.max) {
        return refuse(absl::StrFormat("outside %g..%g", option.min, option.max));
      }
      return static_cast<double>(value);
    }
    case OptionType::kDouble: {
      const double value = strtod_l(text.c_str(), nullptr, CLocale());
      if (value == 0 && text[0] != '0') return refuse("not a number");
      if (value < option.min || value > option.max) {
        return refuse(absl::StrFormat("outside %g..%g", option.min, option.max));
      }
      return value;
    }
  }
  return refuse("unknown type");
}

// libvmaf's output name of a feature (feature/feature_name.c): the alias, then "_alias_value" for
// each naming option not at its default, in the alphabetical order of the options' names. Stores
// the feature's options, parsed, into `parsed` (whose other extractors' parts it leaves alone) and
// their values, defaults included, in the table's order into `values`. INVALID_ARGUMENT for an
// option its extractor does not have or a value the extractor would refuse.
absl::Status ResolveFeature(VmafModelFeature& feature, VmafExtractorOptions& parsed,
                            std::vector<double>& values) {
  const Extractor* extractor = ExtractorOfFeature(feature.name);
  feature.extractor = extractor == nullptr ? "" : extractor->name;
  values.clear();
  if (extractor == nullptr) {
    if (!feature.options.empty()) {
      return absl::UnimplementedError(absl::StrFormat(
          "feature %s has options, but its extractor is not one whose options this code knows "
          "(libvmaf's integer adm, vif and motion)",
          feature.name));
    }
    feature.output_name = FeatureAlias(feature.name);
    return absl::OkStatus();
  }
  for (const VmafFeatureOption& set : feature.options) {
    bool known = false;
    for (const ExtractorOption& option : extractor->options) known |= set.name == option.name;
    if (!known) {
      return absl::InvalidArgumentError(
          absl::StrFormat("feature %s sets %s, which is not an option of libvmaf's integer %s",
                          feature.name, set.name, extractor->name));
    }
  }
  std::map<std::string, std::string> suffixes;  // option name -> "_alias[_value]"
  for (const ExtractorOption& option : extractor->options) {
    const VmafFeatureOption* set = nullptr;
    for (const VmafFeatureOption& candidate : feature.options) {
      if (candidate.name == option.name) set = &candidate;
    }
    if (set == nullptr) {
      values.push_back(option.default_value);
      continue;
    }
    absl::StatusOr<double> value = ExtractorValue(option, set->value);
    if (!value.ok()) {
      return absl::InvalidArgumentError(absl::StrFormat("feature %s (extractor %s): %s",
                                                        feature.name, extractor->name,
                                                        value.status().message()));
    }
    values.push_back(*value);
    if (option.store != nullptr) option.store(parsed, *value);
    if (!option.feature_param || *value == option.default_value) continue;
    const std::string key = option.alias != nullptr ? option.alias : option.name;
    switch (option.type) {
      case OptionType::kBool:
        suffixes[option.name] = "_" + key;
        break;
      case OptionType::kInt:
        suffixes[option.name] = absl::StrFormat("_%s_%d", key, static_cast<int>(*value));
        break;
      case OptionType::kDouble:
        suffixes[option.name] = "_" + key + "_" + FormatG(*value);
        break;
    }
  }
  feature.output_name = FeatureAlias(feature.name);
  for (const auto& [name, suffix] : suffixes) feature.output_name += suffix;
  return absl::OkStatus();
}

// Resolves every feature of `model` and sets model.extractors from their options. The features
// one extractor provides must agree on its options: libvmaf would run the extractor once per set
// of options, and ssimd runs each extractor once per frame (UNIMPLEMENTED otherwise).
absl::Status ResolveFeatures(VmafModel& model) {
  VmafExtractorOptions parsed;
  std::map<std::string, std::pair<std::string, std::vector<double>>> first;  // extractor -> feature
  std::vector<double> values;
  for (VmafModelFeature& feature : model.features) {
    absl::Status status = ResolveFeature(feature, parsed, values);
    if (!status.ok()) {
      return absl::Status(status.code(), model.source + ": " + std::string(status.message()));
    }
    if (feature.extractor.empty()) continue;
    const auto [earlier, inserted] = first.try_emplace(feature.extractor, feature.name, values);
    if (!inserted && earlier->second.second != values) {
      return absl::UnimplementedError(absl::StrFormat(
          "%s: features %s and %s set different options for libvmaf's integer %s, which would "
          "run it twice; ssimd runs each extractor once per frame",
          model.source, earlier->second.first, feature.name, feature.extractor));
    }
  }
  model.extractors = parsed;
  return absl::OkStatus();
}

// ---------------------------------------------------------------------------------------------
// The libsvm text (libvmaf/src/svm.cpp's parser): a header of "key value..." tokens separated by
// single spaces or newlines up to "SV", then one line per support vector: its coefficient and
// "index:value" pairs.

class LibsvmParser {
 public:
  LibsvmParser(std::string_view text, const std::string& source) : text_(text), source_(source) {}

  absl::Status Parse(VmafSvr& svr) {
    if (absl::Status status = ParseHeader(svr); !status.ok()) return status;
    return ParseSupportVectors(svr);
  }

 private:
  absl::Status Error(std::string_view what) const {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s: the libsvm text in \"model\": %s", source_, what));
  }

  // The next header token; libvmaf's reader stops at the first empty one (two separators in a
  // row), which is refused here.
  bool NextToken(std::string_view& token) {
    size_t end = pos_;
    while (end < text_.size() && text_[end] != ' ' && text_[end] != '\n') ++end;
    token = text_.substr(pos_, end - pos_);
    if (token.empty()) return false;
    pos_ = end < text_.size() ? end + 1 : end;
    return true;
  }

  // A number after a header key: libsvm reads it with `>>`, which skips any white space first,
  // and then drops the one character that ends it.
  bool NextValueToken(std::string_view& token) {
    while (pos_ < text_.size() && IsSpace(text_[pos_])) ++pos_;
    size_t end = pos_;
    while (end < text_.size() && !IsSpace(text_[end])) ++end;
    token = text_.substr(pos_, end - pos_);
    pos_ = end < text_.size() ? end + 1 : end;
    return !token.empty();
  }

  absl::Status ReadDoubles(const char* key, int count, std::vector<double>* out) {
    for (int i = 0; i < count; ++i) {
      std::string_view token;
      double value = 0;
      if (!NextValueToken(token) || !ParseWholeDouble(token, value)) {
        return Error(absl::StrFormat("%s needs %d number(s)", key, count));
      }
      if (out != nullptr) out->push_back(value);
    }
    return absl::OkStatus();
  }

  absl::Status ReadInts(const char* key, int count) {
    for (int i = 0; i < count; ++i) {
      std::string_view token;
      int value = 0;
      if (!NextValueToken(token) || !ParseWholeInt(token, value)) {
        return Error(absl::StrFormat("%s needs %d integer(s)", key, count));
      }
    }
    return absl::OkStatus();
  }

  absl::Status ReadInt(const char* key, int& value) {
    std::string_view token;
    if (!NextValueToken(token) || !ParseWholeInt(token, value)) {
      return Error(absl::StrFormat("%s needs an integer", key));
    }
    return absl::OkStatus();
  }

  absl::Status ParseHeader(VmafSvr& svr) {
    bool seen_svm_type = false, seen_kernel = false, seen_gamma = false, seen_rho = false;
    bool seen_total = false;
    int nr_class = 0;
    std::string_view key;
    while (true) {
      if (!NextToken(key)) {
        return Error(pos_ >= text_.size() ? "the header does not end in \"SV\""
                                          : "an empty token (two separators in a row)");
      }
      if (key == "SV") break;
      if (key == "svm_type") {
        std::string_view value;
        if (!NextToken(value)) return Error("svm_type needs a value");
        if (value != "nu_svr") {
          return Error(
              absl::StrFormat("svm_type %s: a LIBSVMNUSVR model needs nu_svr", std::string(value)));
        }
        seen_svm_type = true;
      } else if (key == "kernel_type") {
        std::string_view value;
        if (!NextToken(value)) return Error("kernel_type needs a value");
        if (value == "linear" || value == "polynomial" || value == "sigmoid" ||
            value == "precomputed") {
          return absl::UnimplementedError(
              absl::StrFormat("%s: kernel_type %s: only libvmaf's rbf kernel is implemented",
                              source_, std::string(value)));
        }
        if (value != "rbf") {
          return Error(absl::StrFormat("unknown kernel_type %s", std::string(value)));
        }
        seen_kernel = true;
      } else if (key == "degree") {
        int degree = 0;
        if (absl::Status s = ReadInt("degree", degree); !s.ok()) return s;
      } else if (key == "gamma" || key == "coef0") {
        std::vector<double> value;
        if (absl::Status s = ReadDoubles(key == "gamma" ? "gamma" : "coef0", 1, &value); !s.ok()) {
          return s;
        }
        if (key == "gamma") {
          svr.gamma = value[0];
          seen_gamma = true;
        }
      } else if (key == "nr_class") {
        if (absl::Status s = ReadInt("nr_class", nr_class); !s.ok()) return s;
        if (nr_class != 2) {
          return Error(absl::StrFormat("nr_class %d: a regression model has 2", nr_class));
        }
      } else if (key == "total_sv") {
        int total = 0;
        if (absl::Status s = ReadInt("total_sv", total); !s.ok()) return s;
        if (total < 1 || total > kMaxVmafModelSupportVectors) {
          return Error(
              absl::StrFormat("total_sv %d is outside 1..%d", total, kMaxVmafModelSupportVectors));
        }
        total_sv_ = total;
        seen_total = true;
      } else if (key == "rho" || key == "probA" || key == "probB" || key == "label" ||
                 key == "nr_sv") {
        // Sized by nr_class as libsvm sizes them: one pair of classes, or one entry per class.
        if (nr_class == 0) {
          return Error(absl::StrFormat("%s comes before nr_class", std::string(key)));
        }
        if (key == "rho") {
          std::vector<double> rho;
          if (absl::Status s = ReadDoubles("rho", 1, &rho); !s.ok()) return s;
          svr.rho = rho[0];
          seen_rho = true;
        } else if (key == "probA" || key == "probB") {
          if (absl::Status s = ReadDoubles(key == "probA" ? "probA" : "probB", 1, nullptr);
              !s.ok()) {
            return s;
          }
        } else if (absl::Status s = ReadInts(key == "label" ? "label" : "nr_sv", nr_class);
                   !s.ok()) {
          return s;
        }
      } else {
        return Error(absl::StrFormat("unknown header key \"%s\"", std::string(key)));
      }
    }
    if (!seen_svm_type) return Error("no svm_type");
    if (!seen_kernel) return Error("no kernel_type");
    if (!seen_gamma) return Error("no gamma");
    if (nr_class == 0) return Error("no nr_class");
    if (!seen_total) return Error("no total_sv");
    if (!seen_rho) return Error("no rho");
    return absl::OkStatus();
  }

  absl::Status ParseSupportVectors(VmafSvr& svr) {
    for (int i = 0; i < total_sv_; ++i) {
      if (pos_ >= text_.size()) {
        return Error(
            absl::StrFormat("total_sv is %d but the text has %d support vectors", total_sv_, i));
      }
      size_t end = text_.find('\n', pos_);
      if (end == std::string_view::npos) end = text_.size();
      const std::string_view line = text_.substr(pos_, end - pos_);
      pos_ = end < text_.size() ? end + 1 : end;
      if (absl::Status s = ParseSupportVectorLine(line, i, svr); !s.ok()) return s;
    }
    svr.starts.push_back(svr.nodes.size());
    // Lines after total_sv support vectors are not read, as in libsvm.
    return absl::OkStatus();
  }

  absl::Status ParseSupportVectorLine(std::string_view line, int sv, VmafSvr& svr) {
    auto bad = [&](std::string_view what) {
      return Error(absl::StrFormat("support vector %d: %s", sv + 1, what));
    };
    size_t i = 0;
    while (i < line.size() && IsSpace(line[i])) ++i;
    const size_t coefficient_length = DecimalNumberLength(line.substr(i));
    double coefficient = 0;
    if (coefficient_length == 0 ||
        !ConvertDecimal(line.substr(i, coefficient_length), coefficient)) {
      return bad("no coefficient");
    }
    i += coefficient_length;
    svr.coefficients.push_back(coefficient);
    svr.starts.push_back(svr.nodes.size());
    while (true) {
      const size_t before_space = i;
      while (i < line.size() && IsSpace(line[i])) ++i;
      if (i == line.size()) break;
      if (i == before_space) return bad("no space before an index:value pair");
      VmafSvmNode node;
      const size_t index_length = ParseIntPrefix(line.substr(i), node.index);
      if (index_length == 0 || node.index < 0) return bad("an index that is not an integer >= 0");
      i += index_length;
      if (i >= line.size() || line[i] != ':') return bad("an index without \":value\"");
      ++i;
      while (i < line.size() && IsSpace(line[i])) ++i;
      const size_t value_length = DecimalNumberLength(line.substr(i));
      if (value_length == 0 || !ConvertDecimal(line.substr(i, value_length), node.value)) {
        return bad("an index without a number after \":\"");
      }
      i += value_length;
      svr.nodes.push_back(node);
    }
    return absl::OkStatus();
  }

  std::string_view text_;
  const std::string& source_;
  size_t pos_ = 0;
  int total_sv_ = 0;
};

// ---------------------------------------------------------------------------------------------
// The model JSON (libvmaf/src/read_json_model.c).

absl::Status Invalid(const std::string& source, std::string_view what) {
  return absl::InvalidArgumentError(absl::StrFormat("%s: %s", source, what));
}

absl::StatusOr<double> FiniteNumber(const Json& value, const std::string& source,
                                    std::string_view where) {
  if (!value.is_number()) {
    return Invalid(source, absl::StrFormat("%s is %s, not a number", where, value.type_name()));
  }
  const double number = value.get<double>();
  if (!std::isfinite(number)) {
    return Invalid(source, absl::StrFormat("%s is not a finite number", where));
  }
  return number;
}

// The first number, then one per feature: (model's, features').
absl::Status ReadRescale(const Json& dict, const char* key, const std::string& source,
                         double& model_value, std::vector<VmafModelFeature>& features,
                         double VmafModelFeature::*member) {
  const Json& array = dict.at(key);
  if (!array.is_array()) {
    return Invalid(source,
                   absl::StrFormat("model_dict.%s is %s, not an array", key, array.type_name()));
  }
  if (array.size() != features.size() + 1) {
    return Invalid(source,
                   absl::StrFormat("model_dict.%s has %d numbers; the model's %d features need %d "
                                   "(the model's own, then one per feature)",
                                   key, array.size(), features.size(), features.size() + 1));
  }
  for (size_t i = 0; i < array.size(); ++i) {
    absl::StatusOr<double> number =
        FiniteNumber(array[i], source, absl::StrFormat("model_dict.%s[%d]", key, i));
    if (!number.ok()) return number.status();
    if (i == 0) {
      model_value = *number;
    } else {
      features[i - 1].*member = *number;
    }
  }
  return absl::OkStatus();
}

absl::Status ReadTransform(const Json& object, const std::string& source,
                           VmafScoreTransform& transform) {
  if (!object.is_object()) {
    return Invalid(source, absl::StrFormat("model_dict.score_transform is %s, not an object",
                                           object.type_name()));
  }
  transform.present = true;
  for (const auto& [key, value] : object.items()) {
    const std::string where = "model_dict.score_transform." + key;
    if (key == "enabled") {
      if (!value.is_boolean()) return Invalid(source, where + " is not true or false");
      transform.enabled = value.get<bool>();
    } else if (key == "p0" || key == "p1" || key == "p2") {
      // libvmaf stops reading the model at a null here, so one is refused rather than skipped.
      absl::StatusOr<double> number = FiniteNumber(value, source, where);
      if (!number.ok()) return number.status();
      if (key == "p0") transform.has_p0 = true, transform.p0 = *number;
      if (key == "p1") transform.has_p1 = true, transform.p1 = *number;
      if (key == "p2") transform.has_p2 = true, transform.p2 = *number;
    } else if (key == "knots") {
      if (!value.is_array()) return Invalid(source, where + " is not an array");
      if (value.size() > static_cast<size_t>(kMaxVmafModelKnots)) {
        return Invalid(source, absl::StrFormat("%s has %d knots; libvmaf reads at most %d", where,
                                               value.size(), kMaxVmafModelKnots));
      }
      transform.has_knots = true;
      for (size_t i = 0; i < value.size(); ++i) {
        const Json& knot = value[i];
        if (!knot.is_array() || knot.size() != 2) {
          return Invalid(source, absl::StrFormat("%s[%d] is not an [x, y] pair", where, i));
        }
        absl::StatusOr<double> x = FiniteNumber(knot[0], source, where);
        if (!x.ok()) return x.status();
        absl::StatusOr<double> y = FiniteNumber(knot[1], source, where);
        if (!y.ok()) return y.status();
        if (i > 0 && !(transform.knots.back().first < *x && transform.knots.back().second <= *y)) {
          // libvmaf leaves such a mapping half applied; there is no result of its to reproduce.
          return Invalid(source, absl::StrFormat("%s[%d]: knots need increasing x and "
                                                 "non-decreasing y",
                                                 where, i));
        }
        transform.knots.emplace_back(*x, *y);
      }
    } else if (key == "out_lte_in" || key == "out_gte_in") {
      // libvmaf reads these as the strings "true"/"false"; a JSON boolean stops it.
      if (!value.is_string()) return Invalid(source, where + " is not the string \"true\"");
      const bool on = value.get<std::string>() == "true";
      if (key == "out_lte_in") transform.out_lte_in = transform.out_lte_in || on;
      if (key == "out_gte_in") transform.out_gte_in = transform.out_gte_in || on;
    }
  }
  return absl::OkStatus();
}

// A value of feature_opts_dicts as libvmaf's dictionary stores it.
absl::StatusOr<std::string> OptionText(const Json& value, const std::string& source,
                                       const std::string& where) {
  if (value.is_boolean()) return std::string(value.get<bool>() ? "true" : "false");
  if (value.is_string()) return value.get<std::string>();
  if (value.is_number_integer()) return NormalisedNumber(value.dump());
  if (value.is_number_float()) {
    // libvmaf converts the number's text with strtof; the text is gone here, so the double is
    // written back exactly first. Both round to the same binary32 unless the text lies within half
    // a binary64 step of a binary32 midpoint, which no model's option does.
    char exact[40];
    std::snprintf(exact, sizeof(exact), "%.17g", value.get<double>());
    return NormalisedNumber(exact);
  }
  return Invalid(source, absl::StrFormat("%s is %s, not a number, boolean or string", where,
                                         value.type_name()));
}

absl::Status ReadFeatureOptions(const Json& array, const std::string& source,
                                std::vector<VmafModelFeature>& features) {
  if (!array.is_array()) {
    return Invalid(source, absl::StrFormat("model_dict.feature_opts_dicts is %s, not an array",
                                           array.type_name()));
  }
  if (array.size() > features.size()) {
    return Invalid(source, absl::StrFormat("model_dict.feature_opts_dicts has %d entries for %d "
                                           "features",
                                           array.size(), features.size()));
  }
  for (size_t i = 0; i < array.size(); ++i) {
    const std::string where = absl::StrFormat("model_dict.feature_opts_dicts[%d]", i);
    if (!array[i].is_object()) return Invalid(source, where + " is not an object");
    for (const auto& [key, value] : array[i].items()) {
      absl::StatusOr<std::string> text = OptionText(value, source, where + "." + key);
      if (!text.ok()) return text.status();
      features[i].options.push_back({key, *std::move(text)});
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<VmafModel> ParseModelDict(const Json& dict, std::string name, std::string source) {
  if (!dict.is_object()) {
    return Invalid(source, absl::StrFormat("model_dict is %s, not an object", dict.type_name()));
  }
  for (const char* key : {"model_type", "norm_type", "feature_names", "model"}) {
    if (!dict.contains(key)) return Invalid(source, absl::StrFormat("model_dict has no %s", key));
  }
  VmafModel model;
  model.name = std::move(name);
  model.source = std::move(source);
  const std::string& src = model.source;

  const Json& type = dict.at("model_type");
  if (!type.is_string()) return Invalid(src, "model_dict.model_type is not a string");
  const std::string type_name = type.get<std::string>();
  if (type_name == "BOOTSTRAP_LIBSVMNUSVR" || type_name == "RESIDUEBOOTSTRAP_LIBSVMNUSVR") {
    return absl::UnimplementedError(absl::StrFormat(
        "%s: model_type %s: bootstrap models (libvmaf's model collections) are not implemented",
        src, type_name));
  }
  if (type_name != "LIBSVMNUSVR") {
    return Invalid(src, absl::StrFormat("unsupported model_type \"%s\"; libvmaf's single models "
                                        "are LIBSVMNUSVR",
                                        type_name));
  }

  const Json& norm = dict.at("norm_type");
  if (!norm.is_string()) return Invalid(src, "model_dict.norm_type is not a string");
  if (norm.get<std::string>() == "linear_rescale") {
    model.norm_type = VmafNormType::kLinearRescale;
  } else if (norm.get<std::string>() == "none") {
    model.norm_type = VmafNormType::kNone;
  } else {
    return Invalid(src, absl::StrFormat("unsupported norm_type \"%s\" (linear_rescale or none)",
                                        norm.get<std::string>()));
  }

  const Json& names = dict.at("feature_names");
  if (!names.is_array()) return Invalid(src, "model_dict.feature_names is not an array");
  if (names.empty() || names.size() > static_cast<size_t>(kMaxVmafModelFeatures)) {
    return Invalid(src, absl::StrFormat("model_dict.feature_names has %d features; 1..%d allowed",
                                        names.size(), kMaxVmafModelFeatures));
  }
  for (size_t i = 0; i < names.size(); ++i) {
    if (!names[i].is_string()) {
      return Invalid(src, absl::StrFormat("model_dict.feature_names[%d] is not a string", i));
    }
    VmafModelFeature feature;
    feature.name = names[i].get<std::string>();
    model.features.push_back(std::move(feature));
  }

  for (const char* key : {"slopes", "intercepts"}) {
    if (!dict.contains(key)) {
      if (model.norm_type == VmafNormType::kLinearRescale) {
        return Invalid(src,
                       absl::StrFormat("model_dict has no %s, which linear_rescale needs", key));
      }
      continue;
    }
    const bool slopes = std::string_view(key) == "slopes";
    absl::Status status =
        ReadRescale(dict, key, src, slopes ? model.slope : model.intercept, model.features,
                    slopes ? &VmafModelFeature::slope : &VmafModelFeature::intercept);
    if (!status.ok()) return status;
  }

  if (dict.contains("score_clip")) {
    const Json& clip = dict.at("score_clip");
    if (!clip.is_array() || clip.size() != 2) {
      return Invalid(src, "model_dict.score_clip is not a [min, max] pair");
    }
    absl::StatusOr<double> min = FiniteNumber(clip[0], src, "model_dict.score_clip[0]");
    if (!min.ok()) return min.status();
    absl::StatusOr<double> max = FiniteNumber(clip[1], src, "model_dict.score_clip[1]");
    if (!max.ok()) return max.status();
    model.has_clip = true;
    model.clip_min = *min;
    model.clip_max = *max;
  }

  if (dict.contains("score_transform")) {
    absl::Status status = ReadTransform(dict.at("score_transform"), src, model.transform);
    if (!status.ok()) return status;
  }

  if (dict.contains("chroma_correction_parameter")) {
    return absl::UnimplementedError(absl::StrFormat(
        "%s: chroma_correction_parameter (libvmaf's speed_chroma correction) is not implemented",
        src));
  }

  if (dict.contains("feature_opts_dicts")) {
    absl::Status status = ReadFeatureOptions(dict.at("feature_opts_dicts"), src, model.features);
    if (!status.ok()) return status;
  }
  if (absl::Status status = ResolveFeatures(model); !status.ok()) return status;

  const Json& libsvm = dict.at("model");
  if (!libsvm.is_string()) return Invalid(src, "model_dict.model is not a string");
  const std::string& libsvm_text = libsvm.get_ref<const std::string&>();
  absl::Status status = LibsvmParser(libsvm_text, src).Parse(model.svr);
  if (!status.ok()) return status;
  return model;
}

// ---------------------------------------------------------------------------------------------
// Prediction (libvmaf/src/predict.c and libsvm's svm_predict_values / k_function).

// libsvm's RBF kernel between the dense input (indices 1..n) and a sparse support vector: the
// squared distance summed over the union of indices in ascending merge order, as libsvm walks both
// lists, then exp(-gamma * sum).
double RbfKernel(absl::Span<const double> x, const VmafSvmNode* y, const VmafSvmNode* y_end,
                 double gamma) {
  const int n = static_cast<int>(x.size());
  int xi = 1;
  double sum = 0;
  while (xi <= n && y != y_end) {
    if (xi == y->index) {
      const double d = x[xi - 1] - y->value;
      sum += d * d;
      ++xi;
      ++y;
    } else if (xi > y->index) {
      sum += y->value * y->value;
      ++y;
    } else {
      sum += x[xi - 1] * x[xi - 1];
      ++xi;
    }
  }
  for (; xi <= n; ++xi) sum += x[xi - 1] * x[xi - 1];
  for (; y != y_end; ++y) sum += y->value * y->value;
  return std::exp(-gamma * sum);
}

double SvrPredict(const VmafSvr& svr, absl::Span<const double> x) {
  double sum = 0;
  for (int i = 0; i < svr.support_vectors(); ++i) {
    const VmafSvmNode* begin = svr.nodes.data() + svr.starts[i];
    const VmafSvmNode* end = svr.nodes.data() + svr.starts[i + 1];
    sum += svr.coefficients[i] * RbfKernel(x, begin, end, svr.gamma);
  }
  sum -= svr.rho;
  return sum;
}

// The line through two knots, as libvmaf's find_linear_function_parameters computes it (a knot at
// x = 0 gives the intercept directly).
void LineThrough(std::pair<double, double> a, std::pair<double, double> b, double& slope,
                 double& offset) {
  if (b.first - a.first == 0 || b.second - a.second == 0) {
    slope = 1.0;
    offset = 0.0;
  } else if (a.first == 0) {
    offset = a.second;
    slope = (b.second - offset) / b.first;
  } else {
    slope = (b.second - a.second) / (b.first - a.first);
    offset = a.second - (a.first * slope);
  }
}

// libvmaf's piecewise_linear_mapping: every segment is visited in order and a later one wins where
// x lies on a shared knot; x beyond the ends follows the first or last segment. Fewer than two
// knots leave y as it was.
void PiecewiseLinear(double x, const std::vector<std::pair<double, double>>& knots, double& y) {
  if (knots.size() <= 1) return;
  const size_t segments = knots.size() - 1;
  y = 0.0;
  for (size_t i = 0; i < segments; ++i) {
    const auto& a = knots[i];
    const auto& b = knots[i + 1];
    const bool inside = a.first <= x && x <= b.first;
    if (a.second == b.second) {
      if (inside) y = a.second;
      if (i == 0 && x < a.first) y = a.second;
      if (i == segments - 1 && x > b.first) y = a.second;
    } else {
      double slope = 0.0, offset = 0.0;
      LineThrough(a, b, slope, offset);
      if (inside) y = slope * x + offset;
      if (i == 0 && x < a.first) y = slope * x + offset;
      if (i == segments - 1 && x > b.first) y = slope * x + offset;
    }
  }
}

double Transform(const VmafScoreTransform& t, double y_in) {
  double y_out = y_in;
  if (t.has_p0 || t.has_p1 || t.has_p2) {
    y_out = 0.0;
    if (t.has_p0) y_out += t.p0;
    if (t.has_p1) y_out += t.p1 * y_in;
    if (t.has_p2) y_out += t.p2 * y_in * y_in;
  }
  if (t.has_knots) {
    const double y_stage = y_out;
    PiecewiseLinear(y_stage, t.knots, y_out);
  }
  if (t.out_lte_in) y_out = (y_out > y_in) ? y_in : y_out;
  if (t.out_gte_in) y_out = (y_out < y_in) ? y_in : y_out;
  return y_out;
}

std::vector<std::string> SplitOn(std::string_view text, char separator) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    const size_t end = text.find(separator, start);
    parts.emplace_back(text.substr(start, end == std::string_view::npos ? end : end - start));
    if (end == std::string_view::npos) return parts;
    start = end + 1;
  }
}

absl::StatusOr<VmafModel> ParseModelText(std::string_view json_text, std::string name,
                                         std::string source) {
  if (json_text.size() > kMaxVmafModelFileBytes) {
    return Invalid(source, absl::StrFormat("%d bytes; a model may have at most %d",
                                           json_text.size(), kMaxVmafModelFileBytes));
  }
  Json root;
  try {
    root = Json::parse(json_text.begin(), json_text.end());
  } catch (const Json::exception& e) {
    return Invalid(source, absl::StrFormat("not valid JSON: %s", e.what()));
  }
  if (!root.is_object()) return Invalid(source, "the top level is not a JSON object");
  if (!root.contains("model_dict")) {
    if (root.contains("0")) {
      return absl::UnimplementedError(absl::StrFormat(
          "%s: a model collection (bootstrap models such as vmaf_b_v0.6.3) is not implemented; "
          "use a single model such as vmaf_v0.6.1",
          source));
    }
    return Invalid(source, "no model_dict");
  }
  return ParseModelDict(root.at("model_dict"), std::move(name), std::move(source));
}

}  // namespace

absl::StatusOr<VmafModelOptions> ParseVmafModelOptions(std::string_view spec) {
  VmafModelOptions options;
  for (const std::string& item : SplitOn(spec, ':')) {
    const std::vector<std::string> key_value = SplitOn(item, '=');
    const std::string& key = key_value[0];
    // The tool reads up to the second "=", so "a=b=c" sets a to b.
    std::string value;
    if (key_value.size() >= 2) {
      value = key_value[1];
    } else if (key == "disable_clip" || key == "enable_transform") {
      value = "true";
    } else {
      return absl::InvalidArgumentError(absl::StrFormat(
          "model option \"%s\" needs a value (key=value); only disable_clip and enable_transform "
          "stand alone",
          item));
    }
    if (key == "path") {
      options.path = value;
    } else if (key == "name") {
      options.name = value;
    } else if (key == "version") {
      options.version = value;
    } else if (key == "disable_clip") {
      options.disable_clip = value == "true";
    } else if (key == "enable_transform") {
      options.enable_transform = value == "true";
    } else {
      const std::vector<std::string> parts = SplitOn(key, '.');
      if (parts.size() < 2) {
        return absl::InvalidArgumentError(absl::StrFormat(
            "model option \"%s\": not path, name, version, disable_clip or enable_transform, and "
            "not a feature option extractor.option=value",
            item));
      }
      options.overloads.push_back({parts[0], parts[1], value});
    }
  }
  return options;
}

absl::StatusOr<VmafModel> ParseVmafModel(std::string_view json_text, std::string name) {
  std::string source = "VMAF model " + name;
  return ParseModelText(json_text, std::move(name), std::move(source));
}

absl::StatusOr<VmafModel> LoadVmafModelFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrFormat("cannot open VMAF model file %s", path));
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  if (size < 0) return absl::InvalidArgumentError(absl::StrFormat("cannot read %s", path));
  // Checked before reading, so that a huge file is not loaded only to be refused.
  if (static_cast<uint64_t>(size) > kMaxVmafModelFileBytes) {
    return absl::InvalidArgumentError(
        absl::StrFormat("VMAF model file %s has %d bytes; a model may have at most %d", path, size,
                        kMaxVmafModelFileBytes));
  }
  in.seekg(0, std::ios::beg);
  std::string text(static_cast<size_t>(size), '\0');
  if (!in.read(text.data(), size)) {
    return absl::InvalidArgumentError(absl::StrFormat("cannot read %s", path));
  }
  return ParseModelText(text, "vmaf", "VMAF model file " + path);
}

absl::Status ApplyVmafModelOptions(const VmafModelOptions& options, VmafModel& model) {
  if (!options.name.empty()) model.name = options.name;
  for (const VmafFeatureOverload& overload : options.overloads) {
    bool known = false;
    for (const Extractor& extractor : Extractors())
      known = known || overload.extractor == extractor.name;
    if (!known) {
      // libvmaf would change the options of another extractor's features, or ignore a name it
      // does not know; neither can be reproduced here, so the overload is refused.
      return absl::InvalidArgumentError(absl::StrFormat(
          "feature option %s.%s: overloads apply to the extractors adm, vif and motion",
          overload.extractor, overload.option));
    }
    const std::string value =
        LooksNumeric(overload.value) ? NormalisedNumber(overload.value) : overload.value;
    for (VmafModelFeature& feature : model.features) {
      if (feature.extractor.empty() || feature.extractor != overload.extractor) continue;
      bool replaced = false;
      for (VmafFeatureOption& option : feature.options) {
        if (option.name == overload.option) option.value = value, replaced = true;
      }
      if (!replaced) feature.options.push_back({overload.option, value});
    }
  }
  return ResolveFeatures(model);
}

absl::StatusOr<double> PredictVmaf(const VmafModel& model, const VmafModelOptions& options,
                                   absl::Span<const double> feature_values) {
  if (feature_values.size() != model.features.size()) {
    return absl::InvalidArgumentError(absl::StrFormat("%s reads %d features; %d values were given",
                                                      model.source, model.features.size(),
                                                      feature_values.size()));
  }
  std::vector<double> x(feature_values.begin(), feature_values.end());
  if (model.norm_type == VmafNormType::kLinearRescale) {
    for (size_t i = 0; i < x.size(); ++i) {
      x[i] = model.features[i].slope * x[i] + model.features[i].intercept;
    }
  }
  double prediction = SvrPredict(model.svr, x);
  if (model.norm_type == VmafNormType::kLinearRescale) {
    prediction = (prediction - model.intercept) / model.slope;
  }
  // enable_transform turns on a transform the model has but disables; libvmaf applies it when it
  // reads the model, so only a model with a score_transform is affected.
  if (model.transform.present && (model.transform.enabled || options.enable_transform)) {
    prediction = Transform(model.transform, prediction);
  }
  if (model.has_clip && !options.disable_clip) {
    prediction = (prediction < model.clip_min) ? model.clip_min : prediction;
    prediction = (prediction > model.clip_max) ? model.clip_max : prediction;
  }
  return prediction;
}

absl::StatusOr<double> PredictVmaf(const VmafModel& model, const VmafModelOptions& options,
                                   const std::map<std::string, double>& scores) {
  std::vector<double> values;
  values.reserve(model.features.size());
  for (const VmafModelFeature& feature : model.features) {
    auto found = scores.find(feature.output_name);
    // The long name stands for the value only where no option renames the feature.
    if (found == scores.end() && feature.output_name == FeatureAlias(feature.name)) {
      found = scores.find(feature.name);
    }
    if (found == scores.end()) {
      return absl::NotFoundError(absl::StrFormat("%s needs feature %s (%s), which is missing",
                                                 model.source, feature.output_name, feature.name));
    }
    values.push_back(found->second);
  }
  return PredictVmaf(model, options, values);
}

}  // namespace ssimd
