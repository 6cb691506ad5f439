#include "engine/gpu/upscale_on_device.h"

#include "absl/strings/str_format.h"
#include "engine/gpu/hip_status.h"
#include "kernels/luma_scale_kernels.h"

namespace ssimd {

absl::Status EnqueuePlaneUpscale(hipStream_t stream, const LumaScalePlan& plan,
                                 const UpscaleLayout& layout, uint8_t* block, int plane,
                                 void* dst, const char* what) {
  LumaScaleLaunch launch;
  launch.src = block + layout.plane * plane;
  launch.src_pitch = layout.plane / plan.src_height;
  launch.src_width = plan.src_width;
  launch.src_height = plan.src_height;
  launch.bit_depth = plan.bit_depth;
  launch.horizontal = {reinterpret_cast<const int32_t*>(block + layout.h_first),
                       reinterpret_cast<const int16_t*>(block + layout.h_coefficients),
                       plan.horizontal.taps};
  launch.vertical = {reinterpret_cast<const int32_t*>(block + layout.v_first),
                     reinterpret_cast<const int16_t*>(block + layout.v_coefficients),
                     plan.vertical.taps};
  launch.rounding = plan.rounding;
  launch.first_wide_row = plan.first_wide_row;
  launch.intermediate = reinterpret_cast<int16_t*>(block + layout.intermediate);
  launch.dst = dst;
  launch.dst_width = plan.dst_width;
  launch.dst_height = plan.dst_height;
  SSIMD_HIP_RETURN_IF_ERROR(LaunchLumaScale(launch, stream),
                            absl::StrFormat("upscaling the distorted %s", what));
  return absl::OkStatus();
}

}  // namespace ssimd
