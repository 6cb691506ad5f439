// The one way this tree writes JSON: documents are built as nlohmann::ordered_json (keys stay in
// the order they were added) and turned into text here, and strings that a writer lays out by hand
// (libvmaf-shaped reports, log lines) are quoted here, so escaping is the library's, not ours.
#ifndef SSIMD_JSON_JSON_TEXT_H_
#define SSIMD_JSON_JSON_TEXT_H_

#include <string>
#include <string_view>

#include "nlohmann/json.hpp"

namespace ssimd {

// `text` as a JSON string literal, quotes included. A byte sequence that is not UTF-8 becomes
// U+FFFD instead of failing: these strings come from files, clients and error messages.
std::string JsonQuoted(std::string_view text);

// `value` rounded to `significant_digits` decimal digits (as printf's %.*g), for reports whose
// readers want short numbers; null when it is not finite, as JSON has no NaN or infinity.
nlohmann::ordered_json JsonRounded(double value, int significant_digits);

// `document` as text: on one line when `indent` is negative, else pretty-printed with `indent`
// spaces; invalid UTF-8 in its strings becomes U+FFFD and non-finite numbers become null.
std::string JsonText(const nlohmann::ordered_json& document, int indent = -1);

}  // namespace ssimd

#endif  // SSIMD_JSON_JSON_TEXT_H_
