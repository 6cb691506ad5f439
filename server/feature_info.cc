#include "server/feature_info.h"

#include <string>

#include "engine/feature_table.h"

namespace ssimd {
namespace {

const char* TypeName(OptionType type) {
  switch (type) {
    case OptionType::kBool:
      return "bool";
    case OptionType::kInt:
      return "int";
    case OptionType::kName:
      return "name";
    case OptionType::kDouble:
      break;
  }
  return "double";
}

}  // namespace

void AddFeatureInfo(v1::Capabilities* out) {
  for (const FeatureDescription& feature : FeatureTable()) {
    v1::FeatureInfo* info = out->add_features();
    info->set_name(feature.name);
    for (const OptionDescription& option : feature.options) {
      v1::OptionInfo* o = info->add_options();
      o->set_name(option.name);
      o->set_type(TypeName(option.type));
      o->set_default_value(OptionDefaultText(option));
      // The API reports a range for numbers only; a bool's or a name's range says nothing.
      if (option.type != OptionType::kBool && option.type != OptionType::kName) {
        o->set_min(OptionValueText(option, option.min_value));
        o->set_max(OptionValueText(option, option.max_value));
      }
      o->set_description(option.help);
    }
    for (const std::string& output : feature.outputs) info->add_outputs(output);
  }
}

}  // namespace ssimd
