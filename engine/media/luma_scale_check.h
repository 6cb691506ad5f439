// A LumaScalePlan that is known to give this machine's libswscale bytes: the plan is built, run on
// the host over a test picture of the same geometry and formats, and compared with libswscale's
// output (through PictureScaler, the scaler the CPU path uses). libswscale's rounding depends on
// the CPU (docs/adr/0070), so no plan is trusted for a machine it was not checked on.
#ifndef SSIMD_ENGINE_MEDIA_LUMA_SCALE_CHECK_H_
#define SSIMD_ENGINE_MEDIA_LUMA_SCALE_CHECK_H_

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "engine/luma_scale_plan.h"
#include "engine/media/picture_scaler.h"

extern "C" {
#include <libavutil/pixfmt.h>
}

namespace ssimd {

struct LumaScaleRequest {
  int src_width = 0;
  int src_height = 0;
  AVPixelFormat src_format = AV_PIX_FMT_NONE;
  // The decoded pictures' stated range: a full-range input makes libswscale convert the range,
  // which no plan reproduces.
  AVColorRange src_range = AVCOL_RANGE_UNSPECIFIED;
  int dst_width = 0;
  int dst_height = 0;
  AVPixelFormat dst_format = AV_PIX_FMT_NONE;
  ScalerChoice choice;
  // The chroma planes are scaled too (a metric reads them): the plan then carries their plan
  // (LumaScalePlan::chroma), checked against libswscale's chroma like the luma's.
  bool with_chroma = false;
};

// The rounding this build expects libswscale to use for 8-bit output (x86-64: packed words unless
// accurate_rnd; elsewhere the wide C rounding). The check confirms or corrects it.
VerticalRounding ExpectedVerticalRounding(const ScalerChoice& choice);

// Why an upscale stays with libswscale on the CPU; a metric label each (UpscaleRefusalLabel).
enum class UpscaleRefusal {
  kNone,
  kFormat,    // not planar limited-range YUV of one depth on both sides ("format")
  kScaler,    // neighbor: libswscale's one-tap passes ("scaler")
  kGeometry,  // not an upscale, too small, equal heights, filters too long ("geometry")
  kMismatch,  // the plan's bytes differ from libswscale's on this machine ("mismatch")
  kError,     // the check itself failed, e.g. out of memory ("error")
};
std::string UpscaleRefusalLabel(UpscaleRefusal refusal);

struct CheckedPlan {
  std::shared_ptr<const LumaScalePlan> plan;  // set when refusal is kNone
  UpscaleRefusal refusal = UpscaleRefusal::kNone;
  absl::Status why;  // FAILED_PRECONDITION (or the check's error) saying why, when refused
};

// The plan, once it reproduced libswscale's luma (and chroma, where asked) on a test picture, or
// why not. Only upscales
// (fewer source than target pixels) are planned: there the smaller picture is what moves.
CheckedPlan PlanCheckedAgainstLibswscale(const LumaScaleRequest& request);

// The same, remembered per request (sizes, formats, range, scaler) for the process's life, so
// that a geometry is checked once, not per file; at most a few hundred geometries are kept.
CheckedPlan CachedPlanCheckedAgainstLibswscale(const LumaScaleRequest& request);

}  // namespace ssimd

#endif  // SSIMD_ENGINE_MEDIA_LUMA_SCALE_CHECK_H_
