// Which libswscale scaler brings a rendition to its source's size, by the names ffmpeg's scale
// filter uses; shared by the CPU scaler (engine/media) and the plans that scale off the CPU.
#ifndef SSIMD_ENGINE_SCALER_CHOICE_H_
#define SSIMD_ENGINE_SCALER_CHOICE_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace ssimd {

enum class ScalerKind { kBicubic, kBilinear, kLanczos, kSpline, kNeighbor };

struct ScalerChoice {
  ScalerKind kind = ScalerKind::kBicubic;
  // libswscale's accurate_rnd: every CPU gives the C code's bytes. Without it the x86 SIMD paths
  // (AVX2, SSE2, ...) round differently, so plain bicubic bytes depend on the machine.
  bool accurate_rounding = false;
};

// "bicubic", "bilinear", "lanczos", "spline", "neighbor": libswscale's names.
std::string ScalerKindName(ScalerKind kind);
// INVALID_ARGUMENT listing the names for anything else.
absl::StatusOr<ScalerKind> ParseScalerKind(absl::string_view name);
// The scale filter's flags= value for `choice`, e.g. "bicubic+accurate_rnd".
std::string SwsFlagsText(const ScalerChoice& choice);

}  // namespace ssimd

#endif  // SSIMD_ENGINE_SCALER_CHOICE_H_
