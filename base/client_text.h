// Client-supplied text inside error messages. A status message travels back in a response header
// (gRPC clients refuse headers above 8 KiB by default) and into logs, so a client's feature name,
// option value or path is quoted short: a hostile 100 KB value must not turn INVALID_ARGUMENT into
// a transport error, nor bloat the log.
#ifndef SSIMD_BASE_CLIENT_TEXT_H_
#define SSIMD_BASE_CLIENT_TEXT_H_

#include <cstddef>
#include <string>

#include "absl/strings/string_view.h"

namespace ssimd {

// How much of a client's value a message quotes.
inline constexpr size_t kQuotedClientBytes = 48;
// The longest status message the service sends; longer ones are cut (a last line of defence).
inline constexpr size_t kMaxStatusMessageBytes = 1024;

// `text` in double quotes, at most kQuotedClientBytes of it (cut at a UTF-8 character boundary,
// then "... (N bytes)"), with quotes, backslashes and control bytes escaped.
std::string QuoteClientText(absl::string_view text);

// `text` for messages that print it bare, such as the name a file reader goes by (its extension
// picks the reader, so it cannot be in quotes): `text` itself when it is at most
// kQuotedClientBytes of printable characters other than quotes and backslashes; else escaped as
// QuoteClientText escapes and, when that is too long, its start, "..." and its extension (up to
// 8 letters or digits), kQuotedClientBytes in all.
std::string BareClientName(absl::string_view text);

// `value` as the shortest decimal that reads back as the same double (100.0001 stays 100.0001,
// where %g would print 100), so that a message or an option's canonical text shows what was sent.
std::string ShortestDecimal(double value);

// `message` cut to kMaxStatusMessageBytes (at a character boundary, marked with "...").
std::string CapStatusMessage(absl::string_view message);

}  // namespace ssimd

#endif  // SSIMD_BASE_CLIENT_TEXT_H_
