#include "json/json_text.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace ssimd {

std::string JsonQuoted(std::string_view text) {
  return JsonText(nlohmann::ordered_json(std::string(text)));
}

nlohmann::ordered_json JsonRounded(double value, int significant_digits) {
  if (!std::isfinite(value)) return nullptr;
  // Through text, so that the stored double is the one "%.*g" names and prints back short.
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.*g", significant_digits, value);
  return std::strtod(buffer, nullptr);
}

std::string JsonText(const nlohmann::ordered_json& document, int indent) {
  return document.dump(indent, ' ', /*ensure_ascii=*/false,
                       nlohmann::ordered_json::error_handler_t::replace);
}

}  // namespace ssimd
