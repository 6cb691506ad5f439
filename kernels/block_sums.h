// Device-only helper for .hip files: per-block binary64 sums of a few per-thread values and of
// their absolute values. The order inside a block is a tree; the frame-level error analysis in
// docs/adr/0021-float-ssim-exact-frame-mean.md covers any order, so no particular order is needed.
#ifndef SSIMD_KERNELS_BLOCK_SUMS_H_
#define SSIMD_KERNELS_BLOCK_SUMS_H_

#include "kernels/hip_portability.h"

namespace ssimd {

// Every thread of the block must call this (it synchronises). Thread 0 writes, for each
// quantity q, out[2q] = sum of values[q] and out[2q + 1] = sum of |values[q]|.
// kThreads is the block size and must be a power of two.
template <int kThreads, int kQuantities>
__device__ inline void WriteBlockSums(const double (&values)[kQuantities], double* out) {
  __shared__ double scratch[2 * kQuantities][kThreads];
  const int tid = threadIdx.y * blockDim.x + threadIdx.x;
  for (int q = 0; q < kQuantities; ++q) {
    scratch[2 * q][tid] = values[q];
    scratch[2 * q + 1][tid] = fabs(values[q]);
  }
  __syncthreads();
  for (int half = kThreads / 2; half > 0; half /= 2) {
    if (tid < half) {
      for (int q = 0; q < 2 * kQuantities; ++q) scratch[q][tid] += scratch[q][tid + half];
    }
    __syncthreads();
  }
  if (tid == 0) {
    for (int q = 0; q < 2 * kQuantities; ++q) out[q] = scratch[q][0];
  }
}

}  // namespace ssimd

#endif  // SSIMD_KERNELS_BLOCK_SUMS_H_
