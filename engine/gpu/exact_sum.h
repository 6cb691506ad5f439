// Frame sums of the GPU backend that must equal the CPU's raster-order binary64 sums.
// docs/adr/0021-float-ssim-exact-frame-mean.md and 0022-integer-ssim-frame-sum.md explain the
// bounds used here.
#ifndef SSIMD_ENGINE_GPU_EXACT_SUM_H_
#define SSIMD_ENGINE_GPU_EXACT_SUM_H_

#include <cstddef>
#include <cstdint>
#include <optional>

#include "kernels/exact_sum_math.h"

namespace ssimd {

// A sum of terms and of their absolute values, each formed in binary64 in some order.
struct SumWithMagnitude {
  double sum = 0;
  double abs_sum = 0;
};

// Adds per-block partial records in block order: partials[(b * stride) + offset] is a block's
// sum and partials[(b * stride) + offset + 1] its sum of absolute values.
SumWithMagnitude AddBlockPartials(const double* partials, size_t blocks, size_t stride,
                                  size_t offset);

// An upper bound on |S1 - S2| for any two binary64 summation orders S1, S2 of the same `terms`
// values whose computed absolute sum (in any order) is `abs_sum`: 2 * gamma_{n-1} * sum|t|,
// with sum|t| <= abs_sum / (1 - gamma_{n-1}), inflated to cover the rounding of this bound itself.
double SummationOrderBound(int64_t terms, double abs_sum);

// libvmaf's frame mean f32(sum / N) (N = valid_width * valid_height) where `device` is a sum of
// the same terms in another order. Returns the mean when it is certain to equal the one from the
// CPU's raster-order sum, i.e. when every sum within the order bound of `device` rounds to the
// same binary32 mean; nullopt when the caller must sum the terms in raster order.
std::optional<double> CertainFloatSsimMean(const SumWithMagnitude& device, int64_t terms,
                                           int valid_width, int valid_height);

// The binary64 sum of `values` in index order, as libvmaf's raster loops add them.
double SumInOrder(const double* values, size_t count);

// Integer ssim's sum of window weights over a width x height frame: an exact integer (each
// pixel's weight is the product of its clipped row and column weights), equal to the CPU's
// binary64 running sum, which is exact below 2^53.
int64_t IntegerSsimWeightSum(int width, int height);

// Up to this many pixels the GPU sums integer ssim's per-pixel terms on the host in index order,
// bit-identical to the CPU (docs/numerics.md §14, §16); above it, unless `exact` is set, it adds
// per-block sums, within IntegerSsimBlockSumBound of the CPU.
inline constexpr int64_t kOrderedSsimMaxPixels = 4096;

// The most integer ssim from the GPU's block sums can differ from the CPU's raster-order sum,
// before any dB conversion (docs/adr/0022): the summation-order bound over every thread of the
// vertical pass's block grid, with |SSIM| <= 1.
double IntegerSsimBlockSumBound(int width, int height);

// libvmaf's serial binary64 sum of `terms` (count of them), computed as the device computes it
// (kernels/exact_sum_math.h, docs/adr/0022): blocks in order, each with its approximate sums and
// their look-back, guessed grids, pieces combined in the device's trees, whether it joins a run,
// and for ordered blocks the run before them, their plan and the checked exact stage. The host
// model of kernels/exact_sum_kernels.hip, for tests without a device: when `fallback` is
// kExactSumOnDevice the sum is the method's own, else the caller must add the terms in order.
// `schedule` varies which predecessors' approximate running sums a block's look-back finds
// published (0: all of them), as blocks running side by side would; the sum must not depend on
// it.
ExactSumOutcome SerialSumByBlocks(const double* terms, int64_t count, uint64_t schedule = 0);

// A label for ExactSumFallback in metrics and logs: "none", "serial_budget", "check_failed".
const char* ExactSumFallbackName(int32_t fallback);

}  // namespace ssimd

#endif  // SSIMD_ENGINE_GPU_EXACT_SUM_H_
