#include "base/client_text.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace ssimd {
namespace {

// The longest prefix of `text` of at most `limit` bytes that does not split a UTF-8 sequence.
absl::string_view CutAtCharacter(absl::string_view text, size_t limit) {
  if (text.size() <= limit) return text;
  size_t end = limit;
  // Step back over continuation bytes (10xxxxxx) to the start of the cut character.
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
  return text.substr(0, end);
}

}  // namespace

std::string QuoteClientText(absl::string_view text) {
  const absl::string_view kept = CutAtCharacter(text, kQuotedClientBytes);
  std::string out = "\"";
  for (char c : kept) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(c);
    } else if (u < 0x20 || u == 0x7F) {
      absl::StrAppendFormat(&out, "\\x%02x", u);
    } else {
      out.push_back(c);
    }
  }
  out.push_back('"');
  if (kept.size() < text.size()) absl::StrAppend(&out, "... (", text.size(), " bytes)");
  return out;
}

std::string CapStatusMessage(absl::string_view message) {
  if (message.size() <= kMaxStatusMessageBytes) return std::string(message);
  return absl::StrCat(CutAtCharacter(message, kMaxStatusMessageBytes - 3), "...");
}

}  // namespace ssimd
