#include "engine/io/input_kind.h"

#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"

namespace ssimd {

InputKind InputKindForPath(absl::string_view path) {
  const std::string lower = absl::AsciiStrToLower(path);
  if (absl::EndsWith(lower, ".y4m")) return InputKind::kY4m;
  if (absl::EndsWith(lower, ".yuv") || absl::EndsWith(lower, ".raw")) return InputKind::kRawYuv;
  return InputKind::kEncoded;
}

}  // namespace ssimd
