#include "server/feature_info.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "engine/feature_table.h"

namespace ssimd {

void AddFeatureInfo(v1::Capabilities* out) {
  for (const FeatureDescription& feature : FeatureTable()) {
    v1::FeatureInfo* info = out->add_features();
    info->set_name(feature.name);
    for (const OptionDescription& option : feature.options) {
      v1::OptionInfo* o = info->add_options();
      o->set_name(option.name);
      o->set_type(option.type == OptionType::kBool ? "bool" : "int");
      o->set_default_value(OptionValueText(option, option.default_value));
      // The API reports a range for ints only; a bool's range says nothing.
      if (option.type == OptionType::kInt) {
        o->set_min(absl::StrCat(option.min_value));
        o->set_max(absl::StrCat(option.max_value));
      }
      o->set_description(option.help);
    }
    for (const std::string& output : feature.outputs) info->add_outputs(output);
  }
}

}  // namespace ssimd
