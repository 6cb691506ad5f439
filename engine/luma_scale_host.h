// A luma plane scaled on the host with a LumaScalePlan: the same per-sample arithmetic as the GPU
// kernels (kernels/luma_scale_math.h), run in plain loops. It is the reference the kernels are
// tested against and what the run-time check compares with libswscale.
#ifndef SSIMD_ENGINE_LUMA_SCALE_HOST_H_
#define SSIMD_ENGINE_LUMA_SCALE_HOST_H_

#include <cstddef>
#include <cstdint>

#include "engine/luma_scale_plan.h"

namespace ssimd {

// Samples are uint8 at 8 bit and little-endian uint16 above; strides are in bytes.
void ScaleLumaOnHost(const LumaScalePlan& plan, const uint8_t* src, size_t src_stride,
                     uint8_t* dst, size_t dst_stride);

}  // namespace ssimd

#endif  // SSIMD_ENGINE_LUMA_SCALE_HOST_H_
