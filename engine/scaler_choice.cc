#include "engine/scaler_choice.h"

#include "absl/strings/str_cat.h"

namespace ssimd {
namespace {

struct NamedKind {
  ScalerKind kind;
  const char* name;
};
constexpr NamedKind kKinds[] = {
    {ScalerKind::kBicubic, "bicubic"}, {ScalerKind::kBilinear, "bilinear"},
    {ScalerKind::kLanczos, "lanczos"}, {ScalerKind::kSpline, "spline"},
    {ScalerKind::kNeighbor, "neighbor"},
};

}  // namespace

std::string ScalerKindName(ScalerKind kind) {
  for (const NamedKind& k : kKinds) {
    if (k.kind == kind) return k.name;
  }
  return "bicubic";
}

absl::StatusOr<ScalerKind> ParseScalerKind(absl::string_view name) {
  for (const NamedKind& k : kKinds) {
    if (name == k.name) return k.kind;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "unknown scaler \"", name, "\"; expected bicubic, bilinear, lanczos, spline or neighbor"));
}

std::string SwsFlagsText(const ScalerChoice& choice) {
  std::string text = ScalerKindName(choice.kind);
  if (choice.accurate_rounding) text += "+accurate_rnd";
  return text;
}

}  // namespace ssimd
