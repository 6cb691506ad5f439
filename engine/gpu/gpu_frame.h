// One frame on one leased stream slot: upload, kernels, read-back and the host finish (exact
// sums, means, dB). GPU builds only.
#ifndef SSIMD_ENGINE_GPU_GPU_FRAME_H_
#define SSIMD_ENGINE_GPU_GPU_FRAME_H_

#include <cstdint>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "engine/device_plane.h"
#include "engine/features.h"
#include "engine/gpu/gpu_test_hooks.h"
#include "engine/gpu/stream_slot.h"
#include "engine/luma_scale_plan.h"
#include "engine/picture.h"
#include "engine/scorer.h"

namespace ssimd {

// What a frame did besides its scores (for device statistics).
struct GpuFrameReport {
  bool float_ordered_sum = false;  // float_ssim's mean needed the raster-order host sum
  bool ssim_ordered_sum = false;   // ssim's per-pixel terms were summed on the host in order
  // float_ms_ssim: some scale's mean needed the raster-order host sum.
  bool ms_ssim_ordered_sum = false;
  // Why ssim's exact frame sum fell back to the host (an ExactSumFallback; 0: it did not).
  int32_t ssim_exact_fallback = 0;
  // Planes read where a video engine decoded them on this device, and device planes that had to
  // come through the host (they lay on another device).
  int planes_read_on_device = 0;
  int device_planes_through_host = 0;
};

// Copies plane `index` of the frame (0 = reference, 1 = distorted, 2 = the previous reference)
// into `staging` as packed rows
// (LumaBytes of the geometry, or for a distorted plane with an upscale, PlanInputBytes of the
// plan), checking its samples: StageLumaPlane or StageLumaPieces.
using StagePlane = absl::FunctionRef<absl::Status(int index, uint8_t* staging)>;

// Planes that lie in a device's memory (engine/device_plane.h). Those on the slot's device are
// packed there by a kernel instead of being staged and uploaded; others go through `stage`.
struct DeviceSources {
  const DevicePlane* reference = nullptr;
  const DevicePlane* distorted = nullptr;
  // The reference of the frame before (vmaf's motion): on this device when set, else staged as
  // plane 2, where has_previous_reference says there is one.
  const DevicePlane* previous_reference = nullptr;
  bool has_previous_reference = false;
};

// Scores one frame on `slot` (already leased; the request already passed the context gate),
// taking its planes from `stage`. With `distorted_upscale` (checked to fit the geometry), the
// distorted plane is uploaded at the plan's source size and upscaled on the device (its time
// counts as compute). `chroma`, where psnr reads it, is uploaded and summed on the device
// (gpu_chroma.h); with an upscale its distorted planes are upscaled there with the plan's chroma
// plan. Fills scores and the upload / compute / readback / host_finish timings. On
// error the slot's stream is drained before returning, so the slot can be leased again at once.
absl::Status ScoreFrameOnSlot(StreamSlot& slot, const Geometry& geometry,
                              const FeatureSet& features, StagePlane stage,
                              const DeviceSources& on_device,
                              const LumaScalePlan* distorted_upscale, const FrameChroma* chroma,
                              GpuTestHooks* hooks, ScoreResult& result, GpuFrameReport& report);

}  // namespace ssimd

#endif  // SSIMD_ENGINE_GPU_GPU_FRAME_H_
