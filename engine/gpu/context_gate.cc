#include "engine/gpu/context_gate.h"

#include "absl/strings/str_format.h"
#include "base/status_macros.h"
#include "engine/cpu/vmaf/vmaf_frame.h"
#include "engine/ms_ssim_scores.h"
#include "kernels/decimate.h"
#include "kernels/ms_ssim_math.h"
#include "kernels/ssim_constants.h"
#include "kernels/vmaf_adm_math.h"
#include "kernels/vmaf_vif_math.h"

namespace ssimd {

int GpuFloatSsimScale(const Geometry& geometry, const FloatSsimOptions& options) {
  return options.scale > 0 ? options.scale : AutomaticScale(geometry.width, geometry.height);
}

absl::Status CheckGpuFloatSsimLimits(int width, int height, int scale) {
  if (scale > kMaxExactDecimation) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "float_ssim scale %d on %dx%d is above %d, the largest scale at which the device's "
        "decimation is exact",
        scale, width, height, kMaxExactDecimation));
  }
  const int window = kGaussianTaps;
  const int plane_width = DecimatedSize(width, scale);
  const int plane_height = DecimatedSize(height, scale);
  if (plane_width < window || plane_height < window) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "float_ssim on %dx%d at scale %d works on a %dx%d plane, smaller than the %dx%d Gaussian "
        "window",
        width, height, scale, plane_width, plane_height, window, window));
  }
  return absl::OkStatus();
}

absl::Status CheckGpuContext(const Geometry& geometry, const FeatureSet& features) {
  SSIMD_RETURN_IF_ERROR(ValidateGeometry(geometry));
  SSIMD_RETURN_IF_ERROR(ValidateFeatureSet(features));
  if (features.float_ms_ssim.has_value()) {
    SSIMD_RETURN_IF_ERROR(CheckFloatMsSsimSize(geometry.width, geometry.height));
  }
  if (features.vmaf.has_value()) {
    SSIMD_RETURN_IF_ERROR(CheckVmafRequest(geometry, *features.vmaf));
    // libvmaf's vif mirrors its borders into values an earlier scale left in its buffers below
    // kVifReflectOnceMinSide (engine/cpu/vmaf/vif.h), which only the CPU reproduces; adm's own
    // minimum keeps every size vmaf accepts above it.
    static_assert(kAdmMinSide >= kVifReflectOnceMinSide, "vmaf sizes the device cannot serve");
  }
  if (!features.float_ssim.has_value()) return absl::OkStatus();
  return CheckGpuFloatSsimLimits(geometry.width, geometry.height,
                                 GpuFloatSsimScale(geometry, *features.float_ssim));
}

}  // namespace ssimd
