// The one description of every feature and its options (name, type, default, range, help), in the
// manner of libvmaf's per-extractor option tables. Parsing (features.cc), GetCapabilities
// (server/feature_info.cc) and ssimd-score's help (client/cli_options.cc) are generated from it, so
// they cannot drift apart.
#ifndef SSIMD_ENGINE_FEATURE_TABLE_H_
#define SSIMD_ENGINE_FEATURE_TABLE_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "engine/features.h"

namespace ssimd {

// kName: a word of letters, digits, '_', '-' and '.' (a model's name), held as text.
enum class OptionType { kBool, kInt, kDouble, kName };

struct OptionDescription {
  const char* name;
  OptionType type;
  // Every value is held as a double: bools (0 = false, 1 = true) and ints within any option's
  // range are exact in it, and libvmaf's double options need it.
  double default_value;
  double min_value;  // bools: 0
  double max_value;  // bools: 1
  const char* help;
  // Set for an older spelling kept so that existing requests still parse: the option it stands
  // in for. Canonical output (FormatFeatureArgs) never writes it; giving both is refused.
  const char* alias_of;
  // The option's value in a FeatureSet that requests the feature (numeric types).
  double (*get)(const FeatureSet&);
  void (*set)(FeatureSet&, double);
  // kName options only, in place of the numeric fields above (which they leave 0 / null).
  const char* default_name = nullptr;
  std::string (*get_name)(const FeatureSet&) = nullptr;
  void (*set_name)(FeatureSet&, std::string) = nullptr;
};

// Longest value a kName option takes.
inline constexpr size_t kMaxOptionNameLength = 64;

// What an output's values look like, for the histograms that show them.
enum class OutputScale {
  kUnitInterval,  // similarity in [0, 1], crowded near 1
  kDecibels,      // psnr, and similarities converted with enable_db
  kVmafScore,     // vmaf: 0 (bad) to 100 (indistinguishable), clipped by its model
  kUnbounded,     // mean squared errors: no fixed buckets fit, not observed
};

struct FeatureDescription {
  const char* name;
  std::vector<OptionDescription> options;
  std::vector<std::string> outputs;  // metric names it can produce
  bool (*requested)(const FeatureSet&);
  // Requests the feature with every option at its default.
  void (*request)(FeatureSet&);
  // The scale of `output` (one of `outputs`) in a set that requests the feature.
  OutputScale (*scale_of)(const FeatureSet&, absl::string_view output);
};

// The feature whose outputs include `metric`, or nullptr.
const FeatureDescription* FeatureOfMetric(absl::string_view metric);

// Every feature, in the order metrics and canonical arguments list them.
const std::vector<FeatureDescription>& FeatureTable();

// The feature named `name`, or nullptr.
const FeatureDescription* FindFeature(absl::string_view name);

// A value as the option syntax writes it: "true"/"false" for bools, decimal for ints, the
// shortest decimal that reads back to the same double for doubles.
std::string OptionValueText(const OptionDescription& option, double value);

// The accepted values in words, e.g. "true or false", "0 to 10", "0 or more".
std::string OptionRangeText(const OptionDescription& option);

// The option's default, and its value in `features` (which request its feature), as the option
// syntax writes them, for every type.
std::string OptionDefaultText(const OptionDescription& option);
std::string OptionCurrentText(const OptionDescription& option, const FeatureSet& features);

}  // namespace ssimd

#endif  // SSIMD_ENGINE_FEATURE_TABLE_H_
