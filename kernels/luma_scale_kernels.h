// Host entry point of the plane upscaler (kernels/luma_scale_kernels.hip; luma and chroma planes
// alike): libswscale's two passes, byte for byte (docs/adr/0080). The call only enqueues work on
// `stream` and returns the launch error; the caller owns all device memory, the filters included.
#ifndef SSIMD_KERNELS_LUMA_SCALE_KERNELS_H_
#define SSIMD_KERNELS_LUMA_SCALE_KERNELS_H_

#include <cstddef>
#include <cstdint>

#include "kernels/hip_portability.h"
#include "kernels/luma_scale_math.h"

namespace ssimd {

// One direction's filter on the device: output sample i reads `taps` inputs from first_input[i].
struct DeviceScaleFilter {
  const int32_t* first_input = nullptr;
  const int16_t* coefficients = nullptr;
  int taps = 0;
};

struct LumaScaleLaunch {
  // Input plane: uint8 samples at 8 bit, uint16 above; `src_pitch` in bytes (a multiple of the
  // sample size), so a decoder's pitched surface can be read where it lies.
  const void* src = nullptr;
  size_t src_pitch = 0;
  int src_width = 0;
  int src_height = 0;
  int bit_depth = 8;
  DeviceScaleFilter horizontal;
  DeviceScaleFilter vertical;
  VerticalRounding rounding = VerticalRounding::kWide;
  int first_wide_row = 0;  // rows from here on round kWide (FirstWideRow)
  // src_height x dst_width 15-bit samples, packed rows.
  int16_t* intermediate = nullptr;
  // Output plane, packed rows of dst_width samples (the scorer's layout).
  void* dst = nullptr;
  int dst_width = 0;
  int dst_height = 0;
};

hipError_t LaunchLumaScale(const LumaScaleLaunch& launch, hipStream_t stream);

}  // namespace ssimd

#endif  // SSIMD_KERNELS_LUMA_SCALE_KERNELS_H_
