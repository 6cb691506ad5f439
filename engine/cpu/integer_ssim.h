// The integer `ssim` extractor on the CPU, bit for bit (docs/numerics.md §10-§14), with the one
// deliberate difference at 16 bit: the constants use the true peak^2 (docs/adr/0011). Per-pixel
// arithmetic comes from kernels/integer_ssim_math.h; this file arranges passes, threads and the
// sums.
#ifndef SSIMD_ENGINE_CPU_INTEGER_SSIM_H_
#define SSIMD_ENGINE_CPU_INTEGER_SSIM_H_

#include <cstdint>

#include "base/thread_pool.h"
#include "engine/features.h"
#include "engine/picture.h"

namespace ssimd {

// sum(W * SSIM) / sum(W) over every pixel of the full frame, both sums binary64 in raster order.
// Rows are processed in bands of `band_rows` (0: about 2^18 pixels a band); the result never
// depends on it, nor on the thread count.
double ComputeIntegerSsim(const LumaView& reference, const LumaView& distorted, ThreadPool& pool,
                          int64_t band_rows = 0);

// Adds "ssim" (in dB, +inf at or above 1, when enable_db) to `scores`.
void AddIntegerSsimScore(const IntegerSsimOptions& options, double score, FrameScores& scores);

}  // namespace ssimd

#endif  // SSIMD_ENGINE_CPU_INTEGER_SSIM_H_
