#include "engine/psnr_scores.h"

#include "absl/strings/str_cat.h"
#include "kernels/psnr_math.h"

namespace ssimd {

const char* PsnrPlaneSuffix(int plane) {
  static constexpr const char* kSuffix[3] = {"y", "cb", "cr"};
  return kSuffix[plane];
}

PlaneSize PsnrPlaneSize(const Geometry& geometry, int plane) {
  if (plane == 0) return {geometry.width, geometry.height};
  if (geometry.chroma == ChromaFormat::k400) return {};
  const bool halve_width = geometry.chroma != ChromaFormat::k444;
  const bool halve_height = geometry.chroma == ChromaFormat::k420;
  return {halve_width ? geometry.width >> 1 : geometry.width,
          halve_height ? geometry.height >> 1 : geometry.height};
}

void AddPsnrPlaneScores(const Geometry& geometry, const PsnrOptions& options, int plane,
                        uint64_t sse, FrameScores& scores) {
  const PlaneSize size = PsnrPlaneSize(geometry, plane);
  const uint32_t pixels = PsnrPlanePixels(size.width, size.height);
  const uint32_t peak = PsnrPeak(geometry.bit_depth, options.reduced_hbd_peak);
  const double psnr_max = PsnrMax(geometry.bit_depth, peak, options.min_sse, pixels);
  const double mse = PsnrMse(sse, pixels);
  scores[absl::StrCat("psnr_", PsnrPlaneSuffix(plane))] = PsnrFromMse(mse, peak, psnr_max);
  if (options.enable_mse) scores[absl::StrCat("mse_", PsnrPlaneSuffix(plane))] = mse;
}

}  // namespace ssimd
