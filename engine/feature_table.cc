#include "engine/feature_table.h"

#include <cfloat>
#include <cstdint>
#include <string>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/client_text.h"

namespace ssimd {
namespace {

// Accessors for the table. Each reads or writes one field of a feature the set requests.
FloatSsimOptions& Float(FeatureSet& f) { return *f.float_ssim; }
const FloatSsimOptions& Float(const FeatureSet& f) { return *f.float_ssim; }
IntegerSsimOptions& Integer(FeatureSet& f) { return *f.ssim; }
const IntegerSsimOptions& Integer(const FeatureSet& f) { return *f.ssim; }
PsnrOptions& Psnr(FeatureSet& f) { return *f.psnr; }
const PsnrOptions& Psnr(const FeatureSet& f) { return *f.psnr; }
FloatMsSsimOptions& MsSsim(FeatureSet& f) { return *f.float_ms_ssim; }
const FloatMsSsimOptions& MsSsim(const FeatureSet& f) { return *f.float_ms_ssim; }
VmafOptions& Vmaf(FeatureSet& f) { return *f.vmaf; }
const VmafOptions& Vmaf(const FeatureSet& f) { return *f.vmaf; }

std::vector<std::string> MsSsimOutputs() {
  std::vector<std::string> out = {"float_ms_ssim"};
  for (std::string& name : FloatMsSsimLcsNames()) out.push_back(std::move(name));
  return out;
}

std::vector<std::string> VmafOutputs() {
  std::vector<std::string> out = {"vmaf"};
  for (std::string& name : VmafFeatureNames()) out.push_back(std::move(name));
  return out;
}

std::vector<FeatureDescription> BuildTable() {
  std::vector<FeatureDescription> table;
  table.push_back(FeatureDescription{
      "float_ssim",
      {
          {"scale", OptionType::kInt, 0, 0, 10,
           "0 = automatic decimation (max(1, round(min(w,h)/256))); 1 = none; 2..10 = forced",
           nullptr, [](const FeatureSet& f) { return static_cast<double>(Float(f).scale); },
           [](FeatureSet& f, double v) { Float(f).scale = static_cast<int>(v); }},
          {"enable_db", OptionType::kBool, 0, 0, 1, "report -10*log10(1 - ssim) dB", nullptr,
           [](const FeatureSet& f) { return Float(f).enable_db ? 1.0 : 0.0; },
           [](FeatureSet& f, double v) { Float(f).enable_db = v != 0; }},
          {"clip_db", OptionType::kBool, 0, 0, 1,
           "with enable_db: cap at ceil(10*log10(peak^2 / (0.5/(w*h))))", nullptr,
           [](const FeatureSet& f) { return Float(f).clip_db ? 1.0 : 0.0; },
           [](FeatureSet& f, double v) { Float(f).clip_db = v != 0; }},
          {"enable_lcs", OptionType::kBool, 0, 0, 1,
           "also report float_ssim_l, float_ssim_c, float_ssim_s", nullptr,
           [](const FeatureSet& f) { return Float(f).enable_lcs ? 1.0 : 0.0; },
           [](FeatureSet& f, double v) { Float(f).enable_lcs = v != 0; }},
      },
      {"float_ssim", "float_ssim_l", "float_ssim_c", "float_ssim_s"},
      [](const FeatureSet& f) { return f.float_ssim.has_value(); },
      [](FeatureSet& f) { f.float_ssim = FloatSsimOptions{}; },
      // l, c and s are never converted to dB (docs/numerics.md §8).
      [](const FeatureSet& f, absl::string_view output) {
        return output == "float_ssim" && Float(f).enable_db ? OutputScale::kDecibels
                                                            : OutputScale::kUnitInterval;
      },
  });
  table.push_back(FeatureDescription{
      "ssim",
      {
          {"enable_db", OptionType::kBool, 0, 0, 1,
           "report -10*log10(1 - ssim) dB (+inf when ssim >= 1)", nullptr,
           [](const FeatureSet& f) { return Integer(f).enable_db ? 1.0 : 0.0; },
           [](FeatureSet& f, double v) { Integer(f).enable_db = v != 0; }},
          // The engine keeps `exact` (true: raster order); the user-facing option is its inverse,
          // so that the default is libvmaf's number (docs/adr/0016).
          {"fast_sum", OptionType::kBool, 0, 0, 1,
           "GPU only, pictures above 4096 pixels: sum per-pixel terms in block order (faster; "
           "differs from libvmaf by a bounded amount, see docs/adr/0022). false = libvmaf's "
           "raster-order sum, bit for bit",
           nullptr, [](const FeatureSet& f) { return !Integer(f).exact ? 1.0 : 0.0; },
           [](FeatureSet& f, double v) { Integer(f).exact = v == 0; }},
          {"exact", OptionType::kBool, 1, 0, 1,
           "deprecated: the inverse of fast_sum (exact=false is fast_sum=true)", "fast_sum",
           [](const FeatureSet& f) { return Integer(f).exact ? 1.0 : 0.0; },
           [](FeatureSet& f, double v) { Integer(f).exact = v != 0; }},
      },
      {"ssim"},
      [](const FeatureSet& f) { return f.ssim.has_value(); },
      [](FeatureSet& f) { f.ssim = IntegerSsimOptions{}; },
      [](const FeatureSet& f, absl::string_view) {
        return Integer(f).enable_db ? OutputScale::kDecibels : OutputScale::kUnitInterval;
      },
  });
  table.push_back(FeatureDescription{
      "psnr",
      {
          {"enable_chroma", OptionType::kBool, 1, 0, 1,
           "also psnr_cb and psnr_cr (needs the frames' chroma planes); false = luma only",
           nullptr, [](const FeatureSet& f) { return Psnr(f).enable_chroma ? 1.0 : 0.0; },
           [](FeatureSet& f, double v) { Psnr(f).enable_chroma = v != 0; }},
          {"enable_mse", OptionType::kBool, 0, 0, 1, "also report mse_y, mse_cb, mse_cr", nullptr,
           [](const FeatureSet& f) { return Psnr(f).enable_mse ? 1.0 : 0.0; },
           [](FeatureSet& f, double v) { Psnr(f).enable_mse = v != 0; }},
          {"enable_apsnr", OptionType::kBool, 0, 0, 1,
           "also report apsnr_y, apsnr_cb, apsnr_cr in the summary: psnr of the squared errors "
           "summed over all frames",
           nullptr, [](const FeatureSet& f) { return Psnr(f).enable_apsnr ? 1.0 : 0.0; },
           [](FeatureSet& f, double v) { Psnr(f).enable_apsnr = v != 0; }},
          {"reduced_hbd_peak", OptionType::kBool, 0, 0, 1,
           "above 8 bits: peak 255 * 2^(bits-8), as scaled 8-bit content, instead of 2^bits - 1",
           nullptr, [](const FeatureSet& f) { return Psnr(f).reduced_hbd_peak ? 1.0 : 0.0; },
           [](FeatureSet& f, double v) { Psnr(f).reduced_hbd_peak = v != 0; }},
          {"min_sse", OptionType::kDouble, 0, 0, DBL_MAX,
           "> 0: the least squared error assumed, which caps psnr at "
           "ceil(10*log10(peak^2 / (min_sse / (w*h)))); 0 = cap at 6*bits+12 dB",
           nullptr, [](const FeatureSet& f) { return Psnr(f).min_sse; },
           [](FeatureSet& f, double v) { Psnr(f).min_sse = v; }},
      },
      {"psnr_y", "psnr_cb", "psnr_cr", "mse_y", "mse_cb", "mse_cr", "apsnr_y", "apsnr_cb",
       "apsnr_cr"},
      [](const FeatureSet& f) { return f.psnr.has_value(); },
      [](FeatureSet& f) { f.psnr = PsnrOptions{}; },
      [](const FeatureSet&, absl::string_view output) {
        return absl::StartsWith(output, "mse_") ? OutputScale::kUnbounded
                                                : OutputScale::kDecibels;
      },
  });
  table.push_back(FeatureDescription{
      "float_ms_ssim",
      {
          {"enable_db", OptionType::kBool, 0, 0, 1, "report -10*log10(1 - ms_ssim) dB", nullptr,
           [](const FeatureSet& f) { return MsSsim(f).enable_db ? 1.0 : 0.0; },
           [](FeatureSet& f, double v) { MsSsim(f).enable_db = v != 0; }},
          {"clip_db", OptionType::kBool, 0, 0, 1,
           "with enable_db: cap at ceil(10*log10(peak^2 / (0.5/(w*h))))", nullptr,
           [](const FeatureSet& f) { return MsSsim(f).clip_db ? 1.0 : 0.0; },
           [](FeatureSet& f, double v) { MsSsim(f).clip_db = v != 0; }},
          {"enable_lcs", OptionType::kBool, 0, 0, 1,
           "also report each scale's luminance, contrast and structure terms "
           "(float_ms_ssim_l_scale0 .. float_ms_ssim_s_scale4)",
           nullptr, [](const FeatureSet& f) { return MsSsim(f).enable_lcs ? 1.0 : 0.0; },
           [](FeatureSet& f, double v) { MsSsim(f).enable_lcs = v != 0; }},
      },
      MsSsimOutputs(),
      [](const FeatureSet& f) { return f.float_ms_ssim.has_value(); },
      [](FeatureSet& f) { f.float_ms_ssim = FloatMsSsimOptions{}; },
      [](const FeatureSet& f, absl::string_view output) {
        return output == "float_ms_ssim" && MsSsim(f).enable_db ? OutputScale::kDecibels
                                                                : OutputScale::kUnitInterval;
      },
  });
  table.push_back(FeatureDescription{
      "vmaf",
      {
          {"model", OptionType::kName, 0, 0, 0,
           "the VMAF model, by name, among those the server loaded (GetCapabilities lists them): "
           "e.g. vmaf_v0.6.1, vmaf_v0.6.1neg, vmaf_4k_v0.6.1",
           nullptr, nullptr, nullptr, "vmaf_v0.6.1",
           [](const FeatureSet& f) { return Vmaf(f).model; },
           [](FeatureSet& f, std::string v) {
             Vmaf(f).model = std::move(v);
             Vmaf(f).resolved.reset();
           }},
          {"enable_transform", OptionType::kBool, 0, 0, 1,
           "apply the model's score transform (models that have one)", nullptr,
           [](const FeatureSet& f) { return Vmaf(f).enable_transform ? 1.0 : 0.0; },
           [](FeatureSet& f, double v) { Vmaf(f).enable_transform = v != 0; }},
          {"disable_clip", OptionType::kBool, 0, 0, 1,
           "do not clip the score to the model's range", nullptr,
           [](const FeatureSet& f) { return Vmaf(f).disable_clip ? 1.0 : 0.0; },
           [](FeatureSet& f, double v) { Vmaf(f).disable_clip = v != 0; }},
      },
      VmafOutputs(),
      [](const FeatureSet& f) { return f.vmaf.has_value(); },
      [](FeatureSet& f) { f.vmaf = VmafOptions{}; },
      [](const FeatureSet&, absl::string_view output) {
        // The model's input features (adm, vif, motion) are not shown: they are the model's
        // business, and motion has no fixed range.
        return output == "vmaf" ? OutputScale::kVmafScore : OutputScale::kUnbounded;
      },
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

const FeatureDescription* FeatureOfMetric(absl::string_view metric) {
  for (const FeatureDescription& feature : FeatureTable()) {
    for (const std::string& output : feature.outputs) {
      if (output == metric) return &feature;
    }
  }
  return nullptr;
}

std::string OptionValueText(const OptionDescription& option, double value) {
  switch (option.type) {
    case OptionType::kBool:
      return value != 0 ? "true" : "false";
    case OptionType::kInt:
      return absl::StrCat(static_cast<int64_t>(value));
    case OptionType::kDouble:
    case OptionType::kName:
      break;
  }
  return ShortestDecimal(value);
}

std::string OptionDefaultText(const OptionDescription& option) {
  if (option.type == OptionType::kName) return option.default_name;
  return OptionValueText(option, option.default_value);
}

std::string OptionCurrentText(const OptionDescription& option, const FeatureSet& features) {
  if (option.type == OptionType::kName) return option.get_name(features);
  return OptionValueText(option, option.get(features));
}

std::string OptionRangeText(const OptionDescription& option) {
  switch (option.type) {
    case OptionType::kBool:
      return "true or false";
    case OptionType::kInt:
      return absl::StrFormat("%d to %d", static_cast<int64_t>(option.min_value),
                             static_cast<int64_t>(option.max_value));
    case OptionType::kName:
      return absl::StrFormat("a name of up to %d letters, digits, '_', '-' or '.'",
                             kMaxOptionNameLength);
    case OptionType::kDouble:
      break;
  }
  if (option.max_value == DBL_MAX) {
    return absl::StrCat(OptionValueText(option, option.min_value), " or more");
  }
  return absl::StrCat(OptionValueText(option, option.min_value), " to ",
                      OptionValueText(option, option.max_value));
}

}  // namespace ssimd
