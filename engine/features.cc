#include "engine/features.h"

#include <cmath>
#include <cstdint>
#include <utility>

#include "base/client_text.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "engine/feature_table.h"
#include "base/status_macros.h"

namespace ssimd {
namespace {

absl::StatusOr<bool> ParseBool(absl::string_view feature, absl::string_view key,
                               absl::string_view value) {
  if (value == "true" || value == "1") return true;
  if (value == "false" || value == "0") return false;
  return absl::InvalidArgumentError(absl::StrFormat(
      "%s option %s must be true, false, 1 or 0, got %s", feature, key, QuoteClientText(value)));
}

absl::StatusOr<double> ParseInt(absl::string_view feature, const OptionDescription& option,
                                absl::string_view value) {
  int parsed = 0;
  // Digits only: SimpleAtoi alone would also take signs and surrounding spaces.
  const bool digits = !value.empty() && value.size() <= 9 &&
                      value.find_first_not_of("0123456789") == absl::string_view::npos;
  if (!digits || !absl::SimpleAtoi(value, &parsed) || parsed < option.min_value ||
      parsed > option.max_value) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s option %s must be an integer from %s (%s), got %s", feature,
                        option.name, OptionRangeText(option), option.help,
                        QuoteClientText(value)));
  }
  return parsed;
}

absl::StatusOr<double> ParseDouble(absl::string_view feature, const OptionDescription& option,
                                   absl::string_view value) {
  double parsed = 0;
  // A plain decimal number: no sign, spaces, hex, inf or nan, which SimpleAtod would take.
  const bool plain = !value.empty() && value.size() <= 32 &&
                     value.find_first_not_of("0123456789.eE-+") == absl::string_view::npos &&
                     absl::ascii_isdigit(static_cast<unsigned char>(value.front()));
  if (!plain || !absl::SimpleAtod(value, &parsed) || !std::isfinite(parsed) ||
      parsed < option.min_value || parsed > option.max_value) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s option %s must be a number, %s (%s), got %s", feature, option.name,
                        OptionRangeText(option), option.help, QuoteClientText(value)));
  }
  return parsed;
}

// A kName option's value: a word, so that it can be echoed in messages, labels and logs.
absl::Status CheckName(absl::string_view feature, const OptionDescription& option,
                       absl::string_view value) {
  const bool word = !value.empty() && value.size() <= kMaxOptionNameLength &&
                    value.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                            "0123456789_-.") == absl::string_view::npos;
  if (word) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrFormat("%s option %s must be %s (%s), got %s", feature,
                                                    option.name, OptionRangeText(option),
                                                    option.help, QuoteClientText(value)));
}

absl::StatusOr<double> ParseValue(absl::string_view feature, const OptionDescription& option,
                                  absl::string_view value) {
  switch (option.type) {
    case OptionType::kName:
      break;  // parsed by ParseFeatureOptions
    case OptionType::kInt:
      return ParseInt(feature, option, value);
    case OptionType::kDouble:
      return ParseDouble(feature, option, value);
    case OptionType::kBool:
      break;
  }
  absl::StatusOr<bool> flag = ParseBool(feature, option.name, value);
  if (!flag.ok()) return flag.status();
  return *flag ? 1.0 : 0.0;
}

// The option names a user should write (aliases left out), for error messages.
std::string OptionList(const FeatureDescription& feature) {
  std::vector<absl::string_view> names;
  for (const OptionDescription& option : feature.options) {
    if (option.alias_of == nullptr) names.push_back(option.name);
  }
  return absl::StrJoin(names, ", ");
}

const OptionDescription* FindOption(const FeatureDescription& feature, absl::string_view name) {
  for (const OptionDescription& option : feature.options) {
    if (option.name == name) return &option;
  }
  return nullptr;
}

// Splits "key=val:key=val" into pairs, refusing empty, malformed and repeated options.
absl::StatusOr<std::vector<std::pair<std::string, std::string>>> SplitOptions(
    absl::string_view feature, absl::string_view options) {
  std::vector<std::pair<std::string, std::string>> out;
  for (absl::string_view item : absl::StrSplit(options, ':')) {
    std::vector<absl::string_view> kv = absl::StrSplit(item, absl::MaxSplits('=', 1));
    if (kv.size() != 2 || kv[0].empty() || kv[1].empty()) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s option %s is not of the form key=value (options are separated by ':')", feature,
          QuoteClientText(item)));
    }
    for (const auto& [key, unused] : out) {
      if (key == kv[0]) {
        return absl::InvalidArgumentError(
            absl::StrFormat("%s option %s is given more than once", feature,
                            QuoteClientText(kv[0])));
      }
    }
    out.emplace_back(std::string(kv[0]), std::string(kv[1]));
  }
  return out;
}

// An option and the older name that stands for it set the same thing: only one may be given.
absl::Status CheckNoAliasPair(const FeatureDescription& feature,
                              const std::vector<std::pair<std::string, std::string>>& pairs) {
  for (const auto& [key, unused] : pairs) {
    const OptionDescription* option = FindOption(feature, key);
    if (option->alias_of == nullptr) continue;
    for (const auto& [other, unused_value] : pairs) {
      if (other == option->alias_of) {
        return absl::InvalidArgumentError(absl::StrFormat(
            "%s options %s and %s set the same thing (%s is the older name); give only %s",
            feature.name, option->alias_of, key, key, option->alias_of));
      }
    }
  }
  return absl::OkStatus();
}

// Requests `feature` in `out` with its defaults, then applies "key=val:..." from `options`.
absl::Status ParseFeatureOptions(const FeatureDescription& feature, absl::string_view options,
                                 FeatureSet& out) {
  feature.request(out);
  if (options.empty()) return absl::OkStatus();
  auto pairs = SplitOptions(feature.name, options);
  if (!pairs.ok()) return pairs.status();
  for (const auto& [key, value] : *pairs) {
    const OptionDescription* option = FindOption(feature, key);
    if (option == nullptr) {
      return absl::InvalidArgumentError(absl::StrFormat("%s has no option %s (options: %s)",
                                                        feature.name, QuoteClientText(key),
                                                        OptionList(feature)));
    }
    if (option->type == OptionType::kName) {
      SSIMD_RETURN_IF_ERROR(CheckName(feature.name, *option, value));
      option->set_name(out, value);
      continue;
    }
    absl::StatusOr<double> parsed = ParseValue(feature.name, *option, value);
    if (!parsed.ok()) return parsed.status();
    option->set(out, *parsed);
  }
  return CheckNoAliasPair(feature, *pairs);
}

std::vector<absl::string_view> FeatureNames() {
  std::vector<absl::string_view> names;
  for (const FeatureDescription& feature : FeatureTable()) names.push_back(feature.name);
  return names;
}

}  // namespace

absl::Status ValidateFeatureSet(const FeatureSet& features) {
  bool any = false;
  for (const FeatureDescription& feature : FeatureTable()) {
    if (!feature.requested(features)) continue;
    any = true;
    for (const OptionDescription& option : feature.options) {
      if (option.type == OptionType::kName) {
        SSIMD_RETURN_IF_ERROR(CheckName(feature.name, option, option.get_name(features)));
        continue;
      }
      const double value = option.get(features);
      // Written so that NaN fails too.
      if (!(value >= option.min_value && value <= option.max_value)) {
        return absl::InvalidArgumentError(absl::StrFormat(
            "%s option %s must be %s (%s), got %s", feature.name, option.name,
            OptionRangeText(option), option.help, OptionValueText(option, value)));
      }
    }
  }
  if (!any) {
    return absl::InvalidArgumentError(absl::StrCat(
        "no feature requested: ask for at least one of ", absl::StrJoin(FeatureNames(), ", ")));
  }
  return absl::OkStatus();
}

bool FeaturesReadChroma(const FeatureSet& features, ChromaFormat chroma) {
  return features.psnr.has_value() && features.psnr->enable_chroma && chroma != ChromaFormat::k400;
}

bool FeaturesReadPreviousReference(const FeatureSet& features) {
  return features.vmaf.has_value();
}

int TemporalLag(const FeatureSet& features) { return features.vmaf.has_value() ? 1 : 0; }

absl::Status CheckOnePairFeatures(const FeatureSet& features) {
  if (features.psnr.has_value() && features.psnr->enable_apsnr) {
    return absl::InvalidArgumentError(
        "psnr option enable_apsnr pools a clip's frames into its summary (apsnr_*), and one pair "
        "has no summary: score the frames with ScoreClip, or leave enable_apsnr false");
  }
  return absl::OkStatus();
}

absl::StatusOr<FeatureSet> ParseFeatureArgs(const std::vector<std::string>& args) {
  FeatureSet out;
  if (args.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "no feature given: use ", absl::StrJoin(FeatureNames(), "[=key=value:...] and/or "),
        "[=key=value:...]"));
  }
  for (const std::string& arg : args) {
    const size_t eq = arg.find('=');
    const absl::string_view name = absl::string_view(arg).substr(0, eq);
    const absl::string_view options =
        eq == std::string::npos ? absl::string_view() : absl::string_view(arg).substr(eq + 1);
    if (name.empty()) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "feature argument %s names no feature (write e.g. float_ssim or "
          "float_ssim=scale=2)",
          QuoteClientText(arg)));
    }
    if (eq != std::string::npos && options.empty()) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "feature argument %s has '=' but no options (write %s alone, or %s=key=value)",
          QuoteClientText(arg), name, name));
    }
    const FeatureDescription* feature = FindFeature(name);
    if (feature == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrFormat("unknown feature %s (supported: %s)", QuoteClientText(name),
                          absl::StrJoin(FeatureNames(), ", ")));
    }
    if (feature->requested(out)) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "feature %s is given more than once; give it once with all its options", name));
    }
    SSIMD_RETURN_IF_ERROR(ParseFeatureOptions(*feature, options, out));
  }
  SSIMD_RETURN_IF_ERROR(ValidateFeatureSet(out));
  return out;
}

std::vector<std::string> FormatFeatureArgs(const FeatureSet& features) {
  std::vector<std::string> out;
  for (const FeatureDescription& feature : FeatureTable()) {
    if (!feature.requested(features)) continue;
    std::vector<std::string> options;
    for (const OptionDescription& option : feature.options) {
      if (option.alias_of != nullptr) continue;
      options.push_back(absl::StrCat(option.name, "=", OptionCurrentText(option, features)));
    }
    out.push_back(absl::StrCat(feature.name, "=", absl::StrJoin(options, ":")));
  }
  return out;
}

std::vector<std::string> FloatMsSsimLcsNames() {
  std::vector<std::string> out;
  for (const char* term : {"l", "c", "s"}) {
    for (int scale = 0; scale < 5; ++scale) {  // libvmaf's five scales
      out.push_back(absl::StrFormat("float_ms_ssim_%s_scale%d", term, scale));
    }
  }
  return out;
}

std::vector<std::string> VmafFeatureNames() {
  std::vector<std::string> out = {"integer_adm2"};
  for (int scale = 0; scale < 4; ++scale) out.push_back(absl::StrCat("integer_adm_scale", scale));
  out.push_back("integer_adm3");
  out.push_back("integer_aim");
  out.push_back("integer_motion2");
  out.push_back("integer_motion3");
  out.push_back(std::string(kMotionSadScoreName));
  for (int scale = 0; scale < 4; ++scale) out.push_back(absl::StrCat("integer_vif_scale", scale));
  return out;
}

std::vector<std::string> MetricNames(const FeatureSet& features, ChromaFormat chroma) {
  std::vector<std::string> out;
  if (features.float_ssim.has_value()) {
    out.push_back("float_ssim");
    if (features.float_ssim->enable_lcs) {
      out.push_back("float_ssim_l");
      out.push_back("float_ssim_c");
      out.push_back("float_ssim_s");
    }
  }
  if (features.ssim.has_value()) out.push_back("ssim");
  if (features.psnr.has_value()) {
    const std::vector<std::string> planes =
        FeaturesReadChroma(features, chroma) ? std::vector<std::string>{"y", "cb", "cr"}
                                             : std::vector<std::string>{"y"};
    for (const std::string& plane : planes) out.push_back(absl::StrCat("psnr_", plane));
    if (features.psnr->enable_mse) {
      for (const std::string& plane : planes) out.push_back(absl::StrCat("mse_", plane));
    }
  }
  if (features.float_ms_ssim.has_value()) {
    out.push_back("float_ms_ssim");
    if (features.float_ms_ssim->enable_lcs) {
      for (std::string& name : FloatMsSsimLcsNames()) out.push_back(std::move(name));
    }
  }
  if (features.vmaf.has_value()) {
    out.push_back("vmaf");
    for (std::string& name : VmafFeatureNames()) out.push_back(std::move(name));
  }
  return out;
}

}  // namespace ssimd
