// The luma packer: a strided device-to-device copy where the samples are already in the low bits,
// else one thread per sample shifting each down (kernels/luma_pack_math.h).
#include <cstddef>
#include <cstdint>

#include "kernels/hip_portability.h"
#include "kernels/luma_pack_kernels.h"
#include "kernels/luma_pack_math.h"

namespace ssimd {
namespace {

constexpr int kBlockX = 64;
constexpr int kBlockY = 4;

__global__ void UnshiftLuma16(const uint8_t* src, size_t src_pitch, int width, int height,
                              int sample_shift, uint16_t* dst) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  const uint16_t* row = reinterpret_cast<const uint16_t*>(src + static_cast<size_t>(y) * src_pitch);
  dst[static_cast<size_t>(y) * width + x] =
      static_cast<uint16_t>(SoftwareSampleOf(row[x], sample_shift));
}

}  // namespace

hipError_t LaunchLumaPack(const LumaPackLaunch& l, hipStream_t stream) {
  const size_t sample_bytes = l.bit_depth > 8 ? 2 : 1;
  const size_t row_bytes = sample_bytes * static_cast<size_t>(l.width);
  if (l.sample_shift == 0 || sample_bytes == 1) {
    return hipMemcpy2DAsync(l.dst, row_bytes, l.src, l.src_pitch, row_bytes,
                            static_cast<size_t>(l.height), hipMemcpyDeviceToDevice, stream);
  }
  const dim3 block(kBlockX, kBlockY);
  const dim3 grid((l.width + kBlockX - 1) / kBlockX, (l.height + kBlockY - 1) / kBlockY);
  hipLaunchKernelGGL(UnshiftLuma16, grid, block, 0, stream, static_cast<const uint8_t*>(l.src),
                     l.src_pitch, l.width, l.height, l.sample_shift,
                     static_cast<uint16_t*>(l.dst));
  return hipGetLastError();
}

}  // namespace ssimd
