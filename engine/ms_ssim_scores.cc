#include "engine/ms_ssim_scores.h"

#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "kernels/db.h"

namespace ssimd {

absl::Status CheckFloatMsSsimSize(int width, int height) {
  if (MsSsimSizeSupported(width, height)) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrFormat(
      "float_ms_ssim needs at least %dx%d pixels (an 11x11 window at each of its %d scales), "
      "got %dx%d",
      kMsSsimMinSide, kMsSsimMinSide, kMsSsimScales, width, height));
}

absl::StatusOr<FloatMsSsimValues> CombineFloatMsSsim(const float (&l)[kMsSsimScales],
                                                     const float (&c)[kMsSsimScales],
                                                     const float (&s)[kMsSsimScales]) {
  FloatMsSsimValues values;
  if (!MsSsimCombine(l, c, s, &values.ms_ssim)) {
    return absl::OutOfRangeError(
        "float_ms_ssim is infinite; libvmaf gives no value for this frame");
  }
  for (int scale = 0; scale < kMsSsimScales; ++scale) {
    values.l[scale] = l[scale];
    values.c[scale] = c[scale];
    values.s[scale] = s[scale];
  }
  return values;
}

void AddFloatMsSsimScores(const FloatMsSsimOptions& options, const Geometry& geometry,
                          const FloatMsSsimValues& values, FrameScores& scores) {
  // libvmaf's float_ms_ssim converts to dB with the very formulas of float_ssim (kernels/db.h),
  // but from the binary64 score: there is no binary32 rounding before the conversion here.
  double score = values.ms_ssim;
  if (options.enable_db) {
    score = FloatSsimToDb(score, FloatSsimMaxDb(options.clip_db, geometry.bit_depth, geometry.width,
                                                geometry.height));
  }
  scores["float_ms_ssim"] = score;
  if (!options.enable_lcs) return;
  // FloatMsSsimLcsNames lists l, c, s, each over scales 0..4.
  const std::vector<std::string> names = FloatMsSsimLcsNames();
  const std::array<double, 5>* terms[] = {&values.l, &values.c, &values.s};
  for (int t = 0; t < 3; ++t) {
    for (int scale = 0; scale < kMsSsimScales; ++scale) {
      scores[names[static_cast<size_t>(t * kMsSsimScales + scale)]] = (*terms[t])[scale];
    }
  }
}

}  // namespace ssimd
