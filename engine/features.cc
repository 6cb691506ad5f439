#include "engine/features.h"

#include <cstdint>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"

namespace ssimd {
namespace {

constexpr int kMaxForcedScale = 10;  // libvmaf's option range for float_ssim's scale

absl::StatusOr<bool> ParseBool(absl::string_view feature, absl::string_view key,
                               absl::string_view value) {
  if (value == "true" || value == "1") return true;
  if (value == "false" || value == "0") return false;
  return absl::InvalidArgumentError(absl::StrFormat(
      "%s option %s must be true, false, 1 or 0, got \"%s\"", feature, key, value));
}

absl::StatusOr<int> ParseScale(absl::string_view value) {
  int scale = 0;
  // Digits only: SimpleAtoi alone would also take signs and surrounding spaces.
  const bool digits = !value.empty() && value.size() <= 2 &&
                      value.find_first_not_of("0123456789") == absl::string_view::npos;
  if (!digits || !absl::SimpleAtoi(value, &scale) || scale > kMaxForcedScale) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "float_ssim option scale must be an integer from 0 (automatic) to %d, got \"%s\"",
        kMaxForcedScale, value));
  }
  return scale;
}

// Splits "key=val:key=val" into pairs, refusing empty, malformed and repeated options.
absl::StatusOr<std::vector<std::pair<std::string, std::string>>> SplitOptions(
    absl::string_view feature, absl::string_view options) {
  std::vector<std::pair<std::string, std::string>> out;
  for (absl::string_view item : absl::StrSplit(options, ':')) {
    std::vector<absl::string_view> kv = absl::StrSplit(item, absl::MaxSplits('=', 1));
    if (kv.size() != 2 || kv[0].empty() || kv[1].empty()) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s option \"%s\" is not of the form key=value (options are separated by ':')", feature,
          item));
    }
    for (const auto& [key, unused] : out) {
      if (key == kv[0]) {
        return absl::InvalidArgumentError(
            absl::StrFormat("%s option %s is given more than once", feature, kv[0]));
      }
    }
    out.emplace_back(std::string(kv[0]), std::string(kv[1]));
  }
  return out;
}

absl::StatusOr<FloatSsimOptions> ParseFloatSsim(absl::string_view options) {
  FloatSsimOptions out;
  if (options.empty()) return out;
  auto pairs = SplitOptions("float_ssim", options);
  if (!pairs.ok()) return pairs.status();
  for (const auto& [key, value] : *pairs) {
    if (key == "scale") {
      auto scale = ParseScale(value);
      if (!scale.ok()) return scale.status();
      out.scale = *scale;
      continue;
    }
    bool* target = key == "enable_db"    ? &out.enable_db
                   : key == "clip_db"    ? &out.clip_db
                   : key == "enable_lcs" ? &out.enable_lcs
                                         : nullptr;
    if (target == nullptr) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "float_ssim has no option \"%s\" (options: scale, enable_db, clip_db, enable_lcs)", key));
    }
    auto flag = ParseBool("float_ssim", key, value);
    if (!flag.ok()) return flag.status();
    *target = *flag;
  }
  return out;
}

absl::StatusOr<IntegerSsimOptions> ParseIntegerSsim(absl::string_view options) {
  IntegerSsimOptions out;
  if (options.empty()) return out;
  auto pairs = SplitOptions("ssim", options);
  if (!pairs.ok()) return pairs.status();
  for (const auto& [key, value] : *pairs) {
    bool* target = key == "enable_db" ? &out.enable_db : key == "exact" ? &out.exact : nullptr;
    if (target == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrFormat("ssim has no option \"%s\" (options: enable_db, exact)", key));
    }
    auto flag = ParseBool("ssim", key, value);
    if (!flag.ok()) return flag.status();
    *target = *flag;
  }
  return out;
}

const char* BoolText(bool b) { return b ? "true" : "false"; }

}  // namespace

absl::Status ValidateFeatureSet(const FeatureSet& features) {
  if (!features.float_ssim.has_value() && !features.ssim.has_value()) {
    return absl::InvalidArgumentError(
        "no feature requested: ask for float_ssim, ssim or both");
  }
  if (features.float_ssim.has_value()) {
    const int scale = features.float_ssim->scale;
    if (scale < 0 || scale > kMaxForcedScale) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "float_ssim option scale must be from 0 (automatic) to %d, got %d", kMaxForcedScale,
          scale));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<FeatureSet> ParseFeatureArgs(const std::vector<std::string>& args) {
  FeatureSet out;
  if (args.empty()) {
    return absl::InvalidArgumentError(
        "no feature given: use float_ssim[=key=value:...] and/or ssim[=key=value:...]");
  }
  for (const std::string& arg : args) {
    const size_t eq = arg.find('=');
    const absl::string_view name = absl::string_view(arg).substr(0, eq);
    const absl::string_view options =
        eq == std::string::npos ? absl::string_view() : absl::string_view(arg).substr(eq + 1);
    if (eq != std::string::npos && options.empty()) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "feature argument \"%s\" has '=' but no options (write %s alone, or %s=key=value)", arg,
          name, name));
    }
    if (name == "float_ssim") {
      if (out.float_ssim.has_value()) {
        return absl::InvalidArgumentError(
            "feature float_ssim is given more than once; give it once with all its options");
      }
      auto parsed = ParseFloatSsim(options);
      if (!parsed.ok()) return parsed.status();
      out.float_ssim = *parsed;
    } else if (name == "ssim") {
      if (out.ssim.has_value()) {
        return absl::InvalidArgumentError(
            "feature ssim is given more than once; give it once with all its options");
      }
      auto parsed = ParseIntegerSsim(options);
      if (!parsed.ok()) return parsed.status();
      out.ssim = *parsed;
    } else {
      return absl::InvalidArgumentError(absl::StrFormat(
          "unknown feature \"%s\" (supported: float_ssim, ssim)", name));
    }
  }
  if (absl::Status status = ValidateFeatureSet(out); !status.ok()) return status;
  return out;
}

std::vector<std::string> FormatFeatureArgs(const FeatureSet& features) {
  std::vector<std::string> out;
  if (features.float_ssim.has_value()) {
    const FloatSsimOptions& o = *features.float_ssim;
    out.push_back(absl::StrFormat("float_ssim=scale=%d:enable_db=%s:clip_db=%s:enable_lcs=%s",
                                  o.scale, BoolText(o.enable_db), BoolText(o.clip_db),
                                  BoolText(o.enable_lcs)));
  }
  if (features.ssim.has_value()) {
    out.push_back(absl::StrFormat("ssim=enable_db=%s:exact=%s", BoolText(features.ssim->enable_db),
                                  BoolText(features.ssim->exact)));
  }
  return out;
}

std::vector<std::string> MetricNames(const FeatureSet& features) {
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
  return out;
}

}  // namespace ssimd
