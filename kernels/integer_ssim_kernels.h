// Host entry points of the integer ssim kernels (kernels/integer_ssim_kernels.hip). Every call only
// enqueues work on `stream` and returns the launch error; the caller owns all device memory.
//
// A frame runs as: horizontal int64 moments over the clipped 9-tap window -> vertical moments,
// the binary64 per-pixel term, and per-block sums (see docs/adr/0022-integer-ssim-frame-sum.md).
#ifndef SSIMD_KERNELS_INTEGER_SSIM_KERNELS_H_
#define SSIMD_KERNELS_INTEGER_SSIM_KERNELS_H_

#include <cstddef>
#include <cstdint>

#include "kernels/hip_portability.h"
#include "kernels/integer_ssim_math.h"

namespace ssimd {

// Horizontal moments of every pixel, each plane width x height, packed rows. The window weight of
// a row segment is not stored: it is ClippedWindowWeight(x, width).
struct IntegerRowMomentPlanes {
  int64_t* mx = nullptr;
  int64_t* my = nullptr;
  int64_t* xx = nullptr;
  int64_t* xy = nullptr;
  int64_t* yy = nullptr;
};

// Raw luma planes: uint8 at 8 bit, uint16 above; `stride` in samples.
hipError_t LaunchIntegerSsimHorizontal(const void* ref, const void* dist, size_t stride, int width,
                                       int height, int bit_depth, const IntegerRowMomentPlanes& out,
                                       hipStream_t stream);

// `partials` receives, per block in block order, (sum of terms, sum of |terms|). `terms`, when
// not null, receives every pixel's term W * SSIM(x, y) at y * width + x.
hipError_t LaunchIntegerSsimVertical(const IntegerRowMomentPlanes& in, int width, int height,
                                     double peak_squared, double* partials, double* terms,
                                     hipStream_t stream);

}  // namespace ssimd

#endif  // SSIMD_KERNELS_INTEGER_SSIM_KERNELS_H_
