// Fuzzes the feature-option parser (libvmaf CLI style "float_ssim=scale=2:enable_db=true").
//
// Input: feature arguments separated by '\n' (at most 8). Checked beyond "no crash": an accepted
// set is valid, formats to arguments that parse back to the same set, and names its metrics once
// each; a refused one is INVALID_ARGUMENT with a message.
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "engine/features.h"
#include "fuzz/fuzz_support.h"

namespace ssimd {
namespace {

constexpr size_t kMaxArgs = 8;

bool SameOptions(const FeatureSet& a, const FeatureSet& b) {
  if (a.float_ssim.has_value() != b.float_ssim.has_value()) return false;
  if (a.ssim.has_value() != b.ssim.has_value()) return false;
  if (a.float_ssim.has_value()) {
    const FloatSsimOptions& x = *a.float_ssim;
    const FloatSsimOptions& y = *b.float_ssim;
    if (x.scale != y.scale || x.enable_db != y.enable_db || x.clip_db != y.clip_db ||
        x.enable_lcs != y.enable_lcs) {
      return false;
    }
  }
  if (a.ssim.has_value()) {
    if (a.ssim->enable_db != b.ssim->enable_db || a.ssim->exact != b.ssim->exact) return false;
  }
  return true;
}

void CheckAccepted(const FeatureSet& features) {
  FUZZ_CHECK(ValidateFeatureSet(features).ok(), "ParseFeatureArgs accepted an invalid set");
  const std::vector<std::string> canonical = FormatFeatureArgs(features);
  FUZZ_CHECK(!canonical.empty(), "an accepted set formats to no argument");
  absl::StatusOr<FeatureSet> again = ParseFeatureArgs(canonical);
  FUZZ_CHECK(again.ok(), "the canonical form does not parse back: %s",
             again.status().ToString().c_str());
  FUZZ_CHECK(SameOptions(features, *again), "the canonical form parses to other options");
  const std::vector<std::string> names = MetricNames(features);
  FUZZ_CHECK(!names.empty(), "an accepted set has no metric");
  FUZZ_CHECK(std::set<std::string>(names.begin(), names.end()).size() == names.size(),
             "a metric is named twice");
}

}  // namespace
}  // namespace ssimd

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<std::string> args;
  std::string current;
  for (size_t i = 0; i < size; ++i) {
    if (data[i] == '\n') {
      args.push_back(current);
      current.clear();
      if (args.size() == ssimd::kMaxArgs) break;
    } else {
      current.push_back(static_cast<char>(data[i]));
    }
  }
  if (args.size() < ssimd::kMaxArgs && (!current.empty() || size == 0)) args.push_back(current);

  absl::StatusOr<ssimd::FeatureSet> parsed = ssimd::ParseFeatureArgs(args);
  if (parsed.ok()) {
    ssimd::CheckAccepted(*parsed);
  } else {
    FUZZ_CHECK(parsed.status().code() == absl::StatusCode::kInvalidArgument,
               "refusal with code %d, expected INVALID_ARGUMENT: %s",
               static_cast<int>(parsed.status().code()), parsed.status().ToString().c_str());
    FUZZ_CHECK(!parsed.status().message().empty(), "a refusal without a message");
  }
  return 0;
}
