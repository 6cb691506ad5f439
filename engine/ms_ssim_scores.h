// float_ms_ssim's host finish, the same for every backend: five scales' binary32 means of l, c
// and s into libvmaf's score (kernels/ms_ssim_math.h's combination) and its keys.
#ifndef SSIMD_ENGINE_MS_SSIM_SCORES_H_
#define SSIMD_ENGINE_MS_SSIM_SCORES_H_

#include <array>

#include "absl/status/statusor.h"
#include "engine/features.h"
#include "engine/picture.h"
#include "kernels/ms_ssim_math.h"

namespace ssimd {

// OK, or INVALID_ARGUMENT saying that the picture is too small for five scales and the least
// size that works (176x176). libvmaf gives no float_ms_ssim for such pictures, so no backend
// serves them.
absl::Status CheckFloatMsSsimSize(int width, int height);

// What libvmaf's float_ms_ssim computes for one frame: the score (never in dB here) and each
// scale's mean luminance, contrast and structure terms (binary32 values widened to double).
// Index 0 is the full-resolution scale.
struct FloatMsSsimValues {
  double ms_ssim = 0;
  std::array<double, kMsSsimScales> l{};
  std::array<double, kMsSsimScales> c{};
  std::array<double, kMsSsimScales> s{};
};

// The score from each scale's means. OUT_OF_RANGE where the product is infinite: libvmaf gives
// no value for such a frame (real pictures do not reach it).
absl::StatusOr<FloatMsSsimValues> CombineFloatMsSsim(const float (&l)[kMsSsimScales],
                                                     const float (&c)[kMsSsimScales],
                                                     const float (&s)[kMsSsimScales]);

// Adds float_ms_ssim (in dB with enable_db, capped with clip_db as libvmaf caps it, from the
// full-resolution `geometry`) and, with enable_lcs, float_ms_ssim_{l,c,s}_scale{0..4} (never dB).
void AddFloatMsSsimScores(const FloatMsSsimOptions& options, const Geometry& geometry,
                          const FloatMsSsimValues& values, FrameScores& scores);

}  // namespace ssimd

#endif  // SSIMD_ENGINE_MS_SSIM_SCORES_H_
