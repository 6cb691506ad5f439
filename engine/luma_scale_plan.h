// The integer filters libswscale (FFmpeg 5.1) builds to scale a luma plane, rebuilt here so that
// the same scaling can run elsewhere (the host model, GPU kernels) with libswscale's exact bytes.
// The construction follows libswscale's filter initialisation step by step: fixed-point kernel
// weights, trimming of near-zero taps, alignment of the tap count, folding of taps that fall
// outside the picture, and error-diffusing normalisation (docs/adr/0080 has the details and the
// limits). Whether a plan really matches the libswscale of the machine is checked, not assumed:
// engine/media/luma_scale_check.h.
#ifndef SSIMD_ENGINE_LUMA_SCALE_PLAN_H_
#define SSIMD_ENGINE_LUMA_SCALE_PLAN_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/picture.h"
#include "engine/scaler_choice.h"
#include "kernels/luma_scale_math.h"

namespace ssimd {

// One direction of the separable filter: output sample i reads `taps` input samples from
// first_input[i] on, weighted by coefficients[i * taps ...].
struct ScaleFilter1D {
  int taps = 0;
  std::vector<int32_t> first_input;
  std::vector<int16_t> coefficients;
};

// Tap-count alignment libswscale applies on x86 (horizontal 4, vertical 2); 1 elsewhere.
struct FilterAlignment {
  int horizontal = 4;
  int vertical = 2;
};

struct LumaScalePlan {
  int src_width = 0;
  int src_height = 0;
  int dst_width = 0;
  int dst_height = 0;
  int bit_depth = 8;  // of input and output alike
  ScaleFilter1D horizontal;  // coefficients sum to 2^14
  ScaleFilter1D vertical;    // coefficients sum to 2^12
  VerticalRounding rounding = VerticalRounding::kWide;
  // Output rows from this one on round kWide whatever `rounding` says (FirstWideRow).
  int first_wide_row = 0;
  // The plan of the picture's two chroma planes (Cb and Cr alike) where they are scaled with the
  // luma (a metric reads them), else null; it has no chroma plan of its own.
  std::shared_ptr<const LumaScalePlan> chroma;
};

// OK when `plan` scales to a `width` x `height` picture of `bit_depth`; INTERNAL otherwise (a
// caller paired a plan with the wrong stream).
absl::Status CheckPlanFits(const LumaScalePlan& plan, int width, int height, int bit_depth);

// The picture the plan reads: `scored` (the pair's geometry) at the plan's source size.
// INTERNAL when the plan does not scale to `scored`'s size and depth (CheckPlanFits).
absl::StatusOr<Geometry> PlanInputGeometry(const LumaScalePlan& plan, const Geometry& scored);

// Bytes of the packed input plane the plan reads.
size_t PlanInputBytes(const LumaScalePlan& plan);

// libswscale's filter for `src_size` -> `dst_size` samples: coefficients summing to `unit`, tap
// count a multiple of `alignment` (before the exception libswscale makes for one tap).
absl::StatusOr<ScaleFilter1D> BuildSwscaleFilter(int src_size, int dst_size, ScalerKind kind,
                                                 int unit, int alignment);

// The plan for one geometry. FAILED_PRECONDITION for what the plan does not cover (libswscale
// takes other code paths there, which stay on the CPU): equal heights (a one-tap vertical pass),
// equal sizes (nothing to scale), pictures under 16 samples a side, depths other than 8 and
// 10..14, and filters too long for libswscale's single pass.
absl::StatusOr<LumaScalePlan> PlanLumaScale(int src_width, int src_height, int dst_width,
                                            int dst_height, int bit_depth,
                                            const ScalerChoice& choice,
                                            VerticalRounding rounding,
                                            const FilterAlignment& alignment = FilterAlignment());

// The plan libswscale follows for the chroma planes of a `format` picture whose luma `luma`
// scales: the same construction at the planes' stored sizes (StoredChromaSize: chroma samples
// sit at the same relative position as luma ones in FFmpeg's scale filter for progressive 4:2:0,
// so the filters differ only by size), with the rows written by libswscale's C code counted in
// chroma rows. FAILED_PRECONDITION as PlanLumaScale for chroma planes it does not cover, and for
// 4:0:0.
absl::StatusOr<LumaScalePlan> PlanChromaScale(const LumaScalePlan& luma, ChromaFormat format,
                                              const ScalerChoice& choice,
                                              const FilterAlignment& alignment = FilterAlignment());

}  // namespace ssimd

#endif  // SSIMD_ENGINE_LUMA_SCALE_PLAN_H_
