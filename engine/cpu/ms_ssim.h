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
#include "engine/picture.h"

namespace ssimd {

// OK, or INVALID_ARGUMENT saying that the picture is too small for five scales and the least
// size that works (176x176). libvmaf gives no float_ms_ssim for such pictures.
absl::Status CheckFloatMsSsimSize(int width, int height);

// What libvmaf's float_ms_ssim computes for one frame: the score (never in dB here) and each
// scale's mean luminance, contrast and structure terms (binary32 values widened to double).
// Index 0 is the full-resolution scale.
struct FloatMsSsimValues {
  double ms_ssim = 0;
  std::array<double, 5> l{};
  std::array<double, 5> c{};
  std::array<double, 5> s{};
};

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

// Adds float_ms_ssim (in dB with enable_db, capped with clip_db as libvmaf caps it, from the
// full-resolution `geometry`) and, with enable_lcs, float_ms_ssim_{l,c,s}_scale{0..4} (never dB).
void AddFloatMsSsimScores(const FloatMsSsimOptions& options, const Geometry& geometry,
                          const FloatMsSsimValues& values, FrameScores& scores);

}  // namespace ssimd

#endif  // SSIMD_ENGINE_CPU_MS_SSIM_H_
