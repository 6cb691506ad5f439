#include "engine/feature_table.h"

#include <string>

#include "absl/strings/str_cat.h"

namespace ssimd {
namespace {

// Accessors for the table. Each reads or writes one field of a feature the set requests.
FloatSsimOptions& Float(FeatureSet& f) { return *f.float_ssim; }
const FloatSsimOptions& Float(const FeatureSet& f) { return *f.float_ssim; }
IntegerSsimOptions& Integer(FeatureSet& f) { return *f.ssim; }
const IntegerSsimOptions& Integer(const FeatureSet& f) { return *f.ssim; }

std::vector<FeatureDescription> BuildTable() {
  std::vector<FeatureDescription> table;
  table.push_back(FeatureDescription{
      "float_ssim",
      {
          {"scale", OptionType::kInt, 0, 0, 10,
           "0 = automatic decimation (max(1, round(min(w,h)/256))); 1 = none; 2..10 = forced",
           nullptr, [](const FeatureSet& f) { return Float(f).scale; },
           [](FeatureSet& f, int v) { Float(f).scale = v; }},
          {"enable_db", OptionType::kBool, 0, 0, 1, "report -10*log10(1 - ssim) dB", nullptr,
           [](const FeatureSet& f) { return int{Float(f).enable_db}; },
           [](FeatureSet& f, int v) { Float(f).enable_db = v != 0; }},
          {"clip_db", OptionType::kBool, 0, 0, 1,
           "with enable_db: cap at ceil(10*log10(peak^2 / (0.5/(w*h))))", nullptr,
           [](const FeatureSet& f) { return int{Float(f).clip_db}; },
           [](FeatureSet& f, int v) { Float(f).clip_db = v != 0; }},
          {"enable_lcs", OptionType::kBool, 0, 0, 1,
           "also report float_ssim_l, float_ssim_c, float_ssim_s", nullptr,
           [](const FeatureSet& f) { return int{Float(f).enable_lcs}; },
           [](FeatureSet& f, int v) { Float(f).enable_lcs = v != 0; }},
      },
      {"float_ssim", "float_ssim_l", "float_ssim_c", "float_ssim_s"},
      [](const FeatureSet& f) { return f.float_ssim.has_value(); },
      [](FeatureSet& f) { f.float_ssim = FloatSsimOptions{}; },
  });
  table.push_back(FeatureDescription{
      "ssim",
      {
          {"enable_db", OptionType::kBool, 0, 0, 1,
           "report -10*log10(1 - ssim) dB (+inf when ssim >= 1)", nullptr,
           [](const FeatureSet& f) { return int{Integer(f).enable_db}; },
           [](FeatureSet& f, int v) { Integer(f).enable_db = v != 0; }},
          // The engine keeps `exact` (true: raster order); the user-facing option is its inverse,
          // so that the default is libvmaf's number (docs/adr/0016).
          {"fast_sum", OptionType::kBool, 0, 0, 1,
           "GPU only, pictures above 4096 pixels: sum per-pixel terms in block order (faster; "
           "differs from libvmaf by a bounded amount, see docs/adr/0022). false = libvmaf's "
           "raster-order sum, bit for bit",
           nullptr, [](const FeatureSet& f) { return int{!Integer(f).exact}; },
           [](FeatureSet& f, int v) { Integer(f).exact = v == 0; }},
          {"exact", OptionType::kBool, 1, 0, 1,
           "deprecated: the inverse of fast_sum (exact=false is fast_sum=true)", "fast_sum",
           [](const FeatureSet& f) { return int{Integer(f).exact}; },
           [](FeatureSet& f, int v) { Integer(f).exact = v != 0; }},
      },
      {"ssim"},
      [](const FeatureSet& f) { return f.ssim.has_value(); },
      [](FeatureSet& f) { f.ssim = IntegerSsimOptions{}; },
  });
  return table;
}

}  // namespace

const std::vector<FeatureDescription>& FeatureTable() {
  static const std::vector<FeatureDescription>* const table =
      new std::vector<FeatureDescription>(BuildTable());
  return *table;
}

const FeatureDescription* FindFeature(absl::string_view name) {
  for (const FeatureDescription& feature : FeatureTable()) {
    if (feature.name == name) return &feature;
  }
  return nullptr;
}

std::string OptionValueText(const OptionDescription& option, int value) {
  if (option.type == OptionType::kBool) return value != 0 ? "true" : "false";
  return absl::StrCat(value);
}

}  // namespace ssimd
