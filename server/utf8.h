// Text that came from clients (titles, reasons) made safe for Prometheus labels and JSON logs:
// both formats require valid UTF-8, and a label or log field must not grow without bound.
#ifndef SSIMD_SERVER_UTF8_H_
#define SSIMD_SERVER_UTF8_H_

#include <cstddef>
#include <string>
#include <string_view>

namespace ssimd {

// `text` with each invalid UTF-8 sequence replaced by U+FFFD, cut at a character boundary so the
// result holds at most `max_bytes` bytes.
std::string ValidUtf8(std::string_view text, size_t max_bytes = std::string::npos);

}  // namespace ssimd

#endif  // SSIMD_SERVER_UTF8_H_
