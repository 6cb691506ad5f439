// Host entry points of float_ms_ssim's own kernels (kernels/ms_ssim_kernels.hip): the binary32
// planes of its five-scale pyramid. Every call only enqueues work on `stream` and returns the
// launch error; the caller owns all device memory.
//
// Each scale's SSIM window is float_ssim's, so the GPU backend runs float_ssim's horizontal and
// vertical kernels (kernels/float_ssim_kernels.h) on each pyramid level; only the pyramid itself
// is new here (docs/numerics-ms-ssim.md §1, §3).
#ifndef SSIMD_KERNELS_MS_SSIM_KERNELS_H_
#define SSIMD_KERNELS_MS_SSIM_KERNELS_H_

#include <cstddef>

#include "kernels/hip_portability.h"

namespace ssimd {

// Scale 0: both raw luma planes (uint8 at 8 bit, little-endian uint16 above; `stride` in
// samples) as packed width x height binary32 planes on libvmaf's 8-bit scale.
hipError_t LaunchMsSsimLoad(const void* ref, const void* dist, size_t stride, int width,
                            int height, int bit_depth, float* ref_out, float* dist_out,
                            hipStream_t stream);

// The next scale of both packed width x height binary32 planes: MsSsimNextSide() of each side,
// every sample LowPassDecimatePixel() of the input (kernels/ms_ssim_math.h).
hipError_t LaunchMsSsimDecimate(const float* ref, const float* dist, int width, int height,
                                float* ref_out, float* dist_out, hipStream_t stream);

}  // namespace ssimd

#endif  // SSIMD_KERNELS_MS_SSIM_KERNELS_H_
