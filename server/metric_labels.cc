#include "server/metric_labels.h"

#include <array>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "engine/feature_table.h"

namespace ssimd {

BackendLabel ParseBackendLabel(std::string_view backend) {
  if (backend == "cpu") return {"cpu", ""};
  constexpr std::string_view kGpuPrefix = "gpu:";
  if (backend == "gpu") return {"gpu", ""};
  if (backend.substr(0, kGpuPrefix.size()) == kGpuPrefix) {
    const std::string_view index = backend.substr(kGpuPrefix.size());
    const bool numeric = !index.empty() && index.size() <= 4 &&
                         index.find_first_not_of("0123456789") == std::string_view::npos;
    return {"gpu", numeric ? std::string(index) : ""};
  }
  return {"other", ""};
}

std::string FeatureSetLabel(const FeatureSet& features) {
  std::vector<absl::string_view> names;
  for (const FeatureDescription& feature : FeatureTable()) {
    if (feature.requested(features)) names.push_back(feature.name);
  }
  return names.empty() ? "none" : absl::StrJoin(names, "+");
}

std::string FallbackReasonLabel(std::string_view reason) {
  const std::string text = absl::AsciiStrToLower(absl::string_view(reason.data(), reason.size()));
  // The dispatcher's own prefixes come first; the keywords catch reasons worded elsewhere.
  if (absl::StartsWith(text, "gpu unavailable")) return "gpu_unavailable";
  if (absl::StartsWith(text, "gpu refused")) return "context_refused";
  if (absl::StartsWith(text, "gpu error")) return "device_error";
  if (absl::StrContains(text, "unavailable") || absl::StrContains(text, "no device") ||
      absl::StrContains(text, "without gpu")) {
    return "gpu_unavailable";
  }
  if (absl::StrContains(text, "refused") || absl::StrContains(text, "not supported") ||
      absl::StrContains(text, "unsupported")) {
    return "context_refused";
  }
  if (absl::StrContains(text, "error") || absl::StrContains(text, "lost") ||
      absl::StrContains(text, "failed")) {
    return "device_error";
  }
  return "other";
}

std::string StatusCodeLabel(std::string_view code) {
  static constexpr std::array<std::string_view, 17> kCodes = {
      "OK",
      "CANCELLED",
      "UNKNOWN",
      "INVALID_ARGUMENT",
      "DEADLINE_EXCEEDED",
      "NOT_FOUND",
      "ALREADY_EXISTS",
      "PERMISSION_DENIED",
      "RESOURCE_EXHAUSTED",
      "FAILED_PRECONDITION",
      "ABORTED",
      "OUT_OF_RANGE",
      "UNIMPLEMENTED",
      "INTERNAL",
      "UNAVAILABLE",
      "DATA_LOSS",
      "UNAUTHENTICATED",
  };
  for (std::string_view known : kCodes) {
    if (code == known) return std::string(known);
  }
  return "UNKNOWN";
}

std::string MethodLabel(std::string_view method) {
  constexpr size_t kMaxBytes = 64;
  if (method.empty() || method.size() > kMaxBytes) return "other";
  for (char c : method) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.') return "other";
  }
  return std::string(method);
}

std::string CodecLabel(std::string_view codec) {
  constexpr size_t kMaxBytes = 32;
  if (codec.empty() || codec.size() > kMaxBytes) return "other";
  for (char c : codec) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (!absl::ascii_islower(u) && !absl::ascii_isdigit(u) && c != '_') return "other";
  }
  return std::string(codec);
}

}  // namespace ssimd
