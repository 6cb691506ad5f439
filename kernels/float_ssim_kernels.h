// Host entry points of the float_ssim kernels (kernels/float_ssim_kernels.hip). Every call only
// enqueues work on `stream` and returns the launch error; the caller owns all device memory.
//
// A frame runs as: [decimate, when scale > 1] -> horizontal pass -> vertical pass. The vertical
// pass writes, per thread block, the binary64 sums of the per-pixel terms and of their absolute
// values (see docs/adr/0021-float-ssim-exact-frame-mean.md), and optionally every per-pixel term.
#ifndef SSIMD_KERNELS_FLOAT_SSIM_KERNELS_H_
#define SSIMD_KERNELS_FLOAT_SSIM_KERNELS_H_

#include <cstddef>
#include <cstdint>

#include "kernels/hip_portability.h"

namespace ssimd {

// The five horizontally filtered planes, each (width - 10) x height, packed rows.
struct FloatSsimFilteredPlanes {
  float* mu_r = nullptr;
  float* mu_d = nullptr;
  float* rr = nullptr;
  float* dd = nullptr;
  float* rd = nullptr;
};

// Per-pixel quantities summed by the vertical pass, in this order. Without enable_lcs only the
// first is computed.
inline constexpr int kFloatSsimQuantities = 4;  // ssim, l, c, s
inline constexpr int kFloatSsimBlockX = 32;
inline constexpr int kFloatSsimBlockY = 8;

// Thread blocks (and so partial-sum records) of the vertical pass over a valid region.
inline int FloatSsimPartialBlocks(int valid_width, int valid_height) {
  const int bx = (valid_width + kFloatSsimBlockX - 1) / kFloatSsimBlockX;
  const int by = (valid_height + kFloatSsimBlockY - 1) / kFloatSsimBlockY;
  return bx * by;
}

// Decimates both raw luma planes (uint8 at 8 bit, uint16 above; `stride` in samples) into the
// binary32 planes libvmaf's iqa_decimate() produces, of DecimatedSize() each. `tap` is
// DecimationTapWeight(factor), formed on the host as the CPU forms it.
hipError_t LaunchFloatSsimDecimate(const void* ref, const void* dist, size_t stride, int width,
                                   int height, int bit_depth, int factor, float tap, float* ref_out,
                                   float* dist_out, int out_width, int out_height,
                                   hipStream_t stream);

// Horizontal pass on the raw luma planes (scale 1).
hipError_t LaunchFloatSsimHorizontalRaw(const void* ref, const void* dist, size_t stride, int width,
                                        int height, int bit_depth,
                                        const FloatSsimFilteredPlanes& out, hipStream_t stream);

// Horizontal pass on decimated binary32 planes of width x height, packed rows.
hipError_t LaunchFloatSsimHorizontalF32(const float* ref, const float* dist, int width, int height,
                                        const FloatSsimFilteredPlanes& out, hipStream_t stream);

// Vertical pass and per-pixel terms over the valid region (width - 10) x (height - 10) of the
// plane the horizontal pass read. `partials` receives, per block in block order,
// `quantities` pairs (sum, sum of absolute values); quantities is 1 (ssim) or 4 (ssim, l, c, s).
// `terms`, when not null, receives quantity-major per-pixel terms: terms[q * n + y * vw + x].
hipError_t LaunchFloatSsimVertical(const FloatSsimFilteredPlanes& in, int valid_width,
                                   int valid_height, int quantities, double* partials,
                                   double* terms, hipStream_t stream);

}  // namespace ssimd

#endif  // SSIMD_KERNELS_FLOAT_SSIM_KERNELS_H_
