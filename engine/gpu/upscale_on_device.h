// A plane scaled on the device with a LumaScalePlan (docs/adr/0080): the launch of the two passes
// over a block laid out by upscale_layout.h. The luma's upscale and the chroma's (gpu_chroma.h)
// share it. GPU builds only.
#ifndef SSIMD_ENGINE_GPU_UPSCALE_ON_DEVICE_H_
#define SSIMD_ENGINE_GPU_UPSCALE_ON_DEVICE_H_

#include <cstddef>
#include <cstdint>

#include "absl/status/status.h"
#include "engine/gpu/upscale_layout.h"
#include "engine/luma_scale_plan.h"
#include "kernels/hip_portability.h"

namespace ssimd {

// Enqueues on `stream` the scaling of input plane `plane` of the device block into `dst` (packed
// rows at the plan's target size); `what` names the plane in an error.
absl::Status EnqueuePlaneUpscale(hipStream_t stream, const LumaScalePlan& plan,
                                 const UpscaleLayout& layout, uint8_t* block, int plane,
                                 void* dst, const char* what);

}  // namespace ssimd

#endif  // SSIMD_ENGINE_GPU_UPSCALE_ON_DEVICE_H_
