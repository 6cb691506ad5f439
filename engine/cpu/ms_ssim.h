// libvmaf's float_ms_ssim on the CPU, bit for bit (docs/numerics-ms-ssim.md). The per-sample
// arithmetic comes from kernels/ms_ssim_math.h (and float_ssim's window from
// kernels/float_ssim_math.h) so a device backend can share it; this file builds the five-scale
// pyramid, spreads rows over threads and keeps libvmaf's raster-order sums.
#ifndef SSIMD_ENGINE_CPU_MS_SSIM_H_
#define SSIMD_ENGINE_CPU_MS_SSIM_H_

#include <array>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "base/thread_pool.h"
#include "engine/features.h"
#include "engine/ms_ssim_scores.h"
#include "engine/picture.h"

namespace ssimd {

// Scores one frame. The per-scale l, c and s are always computed (the score is made of them).
// INVALID_ARGUMENT for views that are empty, differ in size or bit depth, have a bit depth other
// than 8, 10, 12 or 16, or are too small (CheckFloatMsSsimSize); OUT_OF_RANGE where libvmaf gives
// up on an infinite score (not expected for real pictures). The result does not depend on the
// number of threads.
absl::StatusOr<FloatMsSsimValues> ComputeFloatMsSsim(const LumaView& reference,
                                                     const LumaView& distorted, ThreadPool& pool);
// The same on the calling thread alone, for callers without a pool (tests, tools).
absl::StatusOr<FloatMsSsimValues> ComputeFloatMsSsim(const LumaView& reference,
                                                     const LumaView& distorted);

}  // namespace ssimd

#endif  // SSIMD_ENGINE_CPU_MS_SSIM_H_
