// Integer ssim on the device: exact int64 moments over the clipped 9x9 window in two separable
// passes, then the binary64 per-pixel term from integer_ssim_math.h, the same lines the CPU runs.
#include <cstddef>
#include <cstdint>

#include "kernels/block_sums.h"
#include "kernels/hip_portability.h"
#include "kernels/integer_ssim_kernels.h"
#include "kernels/integer_ssim_math.h"
#include "kernels/ssim_constants.h"

namespace ssimd {
namespace {

constexpr int kThreads = kIntegerSsimBlockX * kIntegerSsimBlockY;

dim3 Block() { return dim3(kIntegerSsimBlockX, kIntegerSsimBlockY); }

dim3 GridFor(int width, int height) {
  return dim3((width + kIntegerSsimBlockX - 1) / kIntegerSsimBlockX,
              (height + kIntegerSsimBlockY - 1) / kIntegerSsimBlockY);
}

template <typename Sample>
__global__ void IntegerSsimHorizontal(const Sample* ref, const Sample* dist, size_t stride,
                                      int width, int height, IntegerRowMomentPlanes out) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  const Sample* ref_row = ref + static_cast<size_t>(y) * stride;
  const Sample* dist_row = dist + static_cast<size_t>(y) * stride;
  IntegerMoments m;
  for (int t = 0; t < kIntegerTaps; ++t) {
    const int c = x + t - kIntegerRadius;
    if (c < 0 || c >= width) continue;  // clipped window: taps outside the picture are dropped
    AccumulateMoments(m, IntegerTap(t), ref_row[c], dist_row[c]);
  }
  const size_t i = static_cast<size_t>(y) * width + x;
  out.mx[i] = m.mx;
  out.my[i] = m.my;
  out.xx[i] = m.xx;
  out.xy[i] = m.xy;
  out.yy[i] = m.yy;
}

__global__ void __launch_bounds__(kThreads)
    IntegerSsimVertical(IntegerRowMomentPlanes in, int width, int height, double peak_squared,
                        double* partials, double* terms) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  double value[1] = {0.0};
  if (x < width && y < height) {
    const int64_t row_weight = ClippedWindowWeight(x, width);
    IntegerMoments m;
    for (int t = 0; t < kIntegerTaps; ++t) {
      const int r = y + t - kIntegerRadius;
      if (r < 0 || r >= height) continue;
      const size_t i = static_cast<size_t>(r) * width + x;
      IntegerMoments row;
      row.mx = in.mx[i];
      row.my = in.my[i];
      row.xx = in.xx[i];
      row.xy = in.xy[i];
      row.yy = in.yy[i];
      row.w = row_weight;
      AccumulateWeighted(m, IntegerTap(t), row);
    }
    value[0] = IntegerSsimPixel(m, peak_squared);
    if (terms != nullptr) terms[static_cast<size_t>(y) * width + x] = value[0];
  }
  const size_t block = static_cast<size_t>(blockIdx.y) * gridDim.x + blockIdx.x;
  WriteBlockSums<kThreads, 1>(value, partials + block * 2);
}

}  // namespace

hipError_t LaunchIntegerSsimHorizontal(const void* ref, const void* dist, size_t stride, int width,
                                       int height, int bit_depth, const IntegerRowMomentPlanes& out,
                                       hipStream_t stream) {
  const dim3 grid = GridFor(width, height);
  if (bit_depth == 8) {
    hipLaunchKernelGGL(IntegerSsimHorizontal<uint8_t>, grid, Block(), 0, stream,
                       static_cast<const uint8_t*>(ref), static_cast<const uint8_t*>(dist), stride,
                       width, height, out);
  } else {
    hipLaunchKernelGGL(IntegerSsimHorizontal<uint16_t>, grid, Block(), 0, stream,
                       static_cast<const uint16_t*>(ref), static_cast<const uint16_t*>(dist),
                       stride, width, height, out);
  }
  return hipGetLastError();
}

hipError_t LaunchIntegerSsimVertical(const IntegerRowMomentPlanes& in, int width, int height,
                                     double peak_squared, double* partials, double* terms,
                                     hipStream_t stream) {
  hipLaunchKernelGGL(IntegerSsimVertical, GridFor(width, height), Block(), 0, stream, in, width,
                     height, peak_squared, partials, terms);
  return hipGetLastError();
}

}  // namespace ssimd
