// A plane scaled on the device with a LumaScalePlan (docs/adr/0080): where the planes before the
// upscale, the plan's filters and the intermediate rows lie in one device block, and the launch
// of the two passes. The luma's upscale and the chroma's (gpu_chroma.h) share it. GPU builds
// only.
#ifndef SSIMD_ENGINE_GPU_UPSCALE_ON_DEVICE_H_
#define SSIMD_ENGINE_GPU_UPSCALE_ON_DEVICE_H_

#include <cstddef>
#include <cstdint>

#include "absl/status/status.h"
#include "engine/luma_scale_plan.h"
#include "kernels/hip_portability.h"

namespace ssimd {

// Offsets in the block: `planes` packed input planes of the plan's source size first, then the
// filter arrays (what is staged and uploaded, up to filters_end), then, on the device only, the
// intermediate rows the passes share.
struct UpscaleLayout {
  size_t plane = 0;  // bytes of one input plane
  size_t h_first = 0, h_coefficients = 0, v_first = 0, v_coefficients = 0;
  size_t filters_end = 0;
  size_t intermediate = 0;
  size_t device_bytes = 0;
};

UpscaleLayout LayOutUpscale(const LumaScalePlan& plan, int planes);

// The plan's filter arrays copied into a staged block laid out by LayOutUpscale.
void StageUpscaleFilters(const LumaScalePlan& plan, const UpscaleLayout& layout, uint8_t* block);

// Enqueues on `stream` the scaling of input plane `plane` of the device block into `dst` (packed
// rows at the plan's target size); `what` names the plane in an error.
absl::Status EnqueuePlaneUpscale(hipStream_t stream, const LumaScalePlan& plan,
                                 const UpscaleLayout& layout, uint8_t* block, int plane,
                                 void* dst, const char* what);

}  // namespace ssimd

#endif  // SSIMD_ENGINE_GPU_UPSCALE_ON_DEVICE_H_
