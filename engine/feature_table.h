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

enum class OptionType { kBool, kInt };

struct OptionDescription {
  const char* name;
  OptionType type;
  int default_value;  // bools: 0 = false, 1 = true
  int min_value;      // bools: 0
  int max_value;      // bools: 1
  const char* help;
  // Set for an older spelling kept so that existing requests still parse: the option it stands
  // in for. Canonical output (FormatFeatureArgs) never writes it; giving both is refused.
  const char* alias_of;
  // The option's value in a FeatureSet that requests the feature.
  int (*get)(const FeatureSet&);
  void (*set)(FeatureSet&, int);
};

struct FeatureDescription {
  const char* name;
  std::vector<OptionDescription> options;
  std::vector<std::string> outputs;  // metric names it can produce
  bool (*requested)(const FeatureSet&);
  // Requests the feature with every option at its default.
  void (*request)(FeatureSet&);
};

// Every feature, in the order metrics and canonical arguments list them.
const std::vector<FeatureDescription>& FeatureTable();

// The feature named `name`, or nullptr.
const FeatureDescription* FindFeature(absl::string_view name);

// A value as the option syntax writes it: "true"/"false" for bools, decimal for ints.
std::string OptionValueText(const OptionDescription& option, int value);

}  // namespace ssimd

#endif  // SSIMD_ENGINE_FEATURE_TABLE_H_
