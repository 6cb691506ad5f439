// A luma plane scaled on the host with a LumaScalePlan: the same per-sample arithmetic as the GPU
// kernels (kernels/luma_scale_math.h), run in plain loops. It is the reference the kernels are
// tested against and what the run-time check compares with libswscale.
#ifndef SSIMD_ENGINE_LUMA_SCALE_HOST_H_
#define SSIMD_ENGINE_LUMA_SCALE_HOST_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/types/span.h"

#include "engine/luma_scale_plan.h"
#include "engine/picture.h"

namespace ssimd {

// Samples are uint8 at 8 bit and little-endian uint16 above; strides are in bytes.
void ScaleLumaOnHost(const LumaScalePlan& plan, const uint8_t* src, size_t src_stride,
                     uint8_t* dst, size_t dst_stride);

// A picture's packed planes as a raw .yuv frame lays them out (luma, then with `with_chroma` its
// Cb and Cr at StoredChromaSize), of geometry `input` (the plan's source size), scaled with `plan`
// (its chroma plan for the chroma) into `out`, in the same layout at the plan's target size.
// INTERNAL when the bytes or the geometry do not fit the plan, or chroma comes without a plan.
absl::Status ScalePackedPictureOnHost(const LumaScalePlan& plan, const Geometry& input,
                                      bool with_chroma, absl::Span<const uint8_t> in,
                                      std::string& out);

}  // namespace ssimd

#endif  // SSIMD_ENGINE_LUMA_SCALE_HOST_H_
