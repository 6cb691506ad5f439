#include "base/client_text.h"

#include <charconv>

#include "absl/strings/ascii.h"
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

// `c` as a quoted message shows it: quotes and backslashes behind a backslash, control bytes
// as \xNN, anything else (UTF-8 sequences included) as it is.
void AppendEscaped(char c, std::string& out) {
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

std::string Escaped(absl::string_view text) {
  std::string out;
  for (char c : text) AppendEscaped(c, out);
  return out;
}

// ".mp4" for "a/b.mp4": a dot after the last slash and 1 to 8 letters or digits; else empty.
absl::string_view ShortExtension(absl::string_view text) {
  const size_t dot = text.rfind('.');
  if (dot == absl::string_view::npos) return "";
  const absl::string_view ext = text.substr(dot);
  if (ext.size() < 2 || ext.size() > 9) return "";
  for (char c : ext.substr(1)) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c))) return "";
  }
  return ext;
}

}  // namespace

std::string BareClientName(absl::string_view text) {
  std::string whole = Escaped(text);
  if (whole.size() <= kQuotedClientBytes) return whole;
  constexpr absl::string_view kCut = "...";
  const absl::string_view ext = ShortExtension(text);
  const size_t room = kQuotedClientBytes - kCut.size() - ext.size();
  // Whole characters and whole escapes only: a cut never leaves half of either.
  std::string head;
  for (size_t i = 0; i < text.size();) {
    size_t length = 1;
    const unsigned char lead = static_cast<unsigned char>(text[i]);
    if (lead >= 0xC0) {
      while (i + length < text.size() &&
             (static_cast<unsigned char>(text[i + length]) & 0xC0) == 0x80) {
        ++length;
      }
    }
    const std::string piece = Escaped(text.substr(i, length));
    if (head.size() + piece.size() > room) break;
    head += piece;
    i += length;
  }
  return absl::StrCat(head, kCut, ext);
}

std::string QuoteClientText(absl::string_view text) {
  const absl::string_view kept = CutAtCharacter(text, kQuotedClientBytes);
  std::string out = "\"";
  for (char c : kept) AppendEscaped(c, out);
  out.push_back('"');
  if (kept.size() < text.size()) absl::StrAppend(&out, "... (", text.size(), " bytes)");
  return out;
}

std::string ShortestDecimal(double value) {
  char buffer[32];
  const std::to_chars_result end = std::to_chars(buffer, buffer + sizeof(buffer), value);
  return std::string(buffer, end.ptr);
}

std::string CapStatusMessage(absl::string_view message) {
  if (message.size() <= kMaxStatusMessageBytes) return std::string(message);
  return absl::StrCat(CutAtCharacter(message, kMaxStatusMessageBytes - 3), "...");
}

}  // namespace ssimd
