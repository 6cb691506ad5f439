// libswscale's plane scaler (luma or chroma) on the device: one thread per output sample of each
// pass, the arithmetic from kernels/luma_scale_math.h (the host model's), the filters from the
// host plan.
#include <cstddef>
#include <cstdint>

#include "kernels/hip_portability.h"
#include "kernels/luma_scale_kernels.h"
#include "kernels/luma_scale_math.h"

namespace ssimd {
namespace {

constexpr int kBlockX = 64;
constexpr int kBlockY = 4;

dim3 GridFor(int width, int height) {
  return dim3((width + kBlockX - 1) / kBlockX, (height + kBlockY - 1) / kBlockY);
}

template <typename Sample>
__global__ void LumaScaleHorizontal(const uint8_t* src, size_t src_pitch, int src_height,
                                    int bit_depth, DeviceScaleFilter filter, int16_t* out,
                                    int dst_width) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= dst_width || y >= src_height) return;
  const Sample* row = reinterpret_cast<const Sample*>(src + static_cast<size_t>(y) * src_pitch);
  out[static_cast<size_t>(y) * dst_width + x] = HorizontalLumaSample(
      row + filter.first_input[x],
      filter.coefficients + static_cast<size_t>(x) * filter.taps, filter.taps, bit_depth);
}

__global__ void LumaScaleVertical8(const int16_t* in, DeviceScaleFilter filter,
                                   VerticalRounding rounding, int first_wide_row, uint8_t* out,
                                   int dst_width, int dst_height) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= dst_width || y >= dst_height) return;
  const size_t row_step = static_cast<size_t>(dst_width);
  const int16_t* column = in + filter.first_input[y] * row_step + x;
  const int16_t* coefficients = filter.coefficients + static_cast<size_t>(y) * filter.taps;
  out[static_cast<size_t>(y) * dst_width + x] =
      RoundingOfRow(rounding, y, first_wide_row) == VerticalRounding::kPackedWords
          ? VerticalLumaSample8PackedWords(column, row_step, coefficients, filter.taps)
          : VerticalLumaSample8Wide(column, row_step, coefficients, filter.taps);
}

__global__ void LumaScaleVerticalDeep(const int16_t* in, DeviceScaleFilter filter, int bit_depth,
                                      uint16_t* out, int dst_width, int dst_height) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= dst_width || y >= dst_height) return;
  const size_t row_step = static_cast<size_t>(dst_width);
  out[static_cast<size_t>(y) * dst_width + x] = VerticalLumaSampleDeep(
      in + filter.first_input[y] * row_step + x, row_step,
      filter.coefficients + static_cast<size_t>(y) * filter.taps, filter.taps, bit_depth);
}

}  // namespace

hipError_t LaunchLumaScale(const LumaScaleLaunch& l, hipStream_t stream) {
  const uint8_t* src = static_cast<const uint8_t*>(l.src);
  const dim3 block(kBlockX, kBlockY);
  if (l.bit_depth == 8) {
    hipLaunchKernelGGL(LumaScaleHorizontal<uint8_t>, GridFor(l.dst_width, l.src_height), block, 0,
                       stream, src, l.src_pitch, l.src_height, l.bit_depth, l.horizontal,
                       l.intermediate, l.dst_width);
    hipLaunchKernelGGL(LumaScaleVertical8, GridFor(l.dst_width, l.dst_height), block, 0, stream,
                       l.intermediate, l.vertical, l.rounding, l.first_wide_row,
                       static_cast<uint8_t*>(l.dst),
                       l.dst_width, l.dst_height);
  } else {
    hipLaunchKernelGGL(LumaScaleHorizontal<uint16_t>, GridFor(l.dst_width, l.src_height), block,
                       0, stream, src, l.src_pitch, l.src_height, l.bit_depth, l.horizontal,
                       l.intermediate, l.dst_width);
    hipLaunchKernelGGL(LumaScaleVerticalDeep, GridFor(l.dst_width, l.dst_height), block, 0,
                       stream, l.intermediate, l.vertical, l.bit_depth,
                       static_cast<uint16_t*>(l.dst), l.dst_width, l.dst_height);
  }
  return hipGetLastError();
}

}  // namespace ssimd
