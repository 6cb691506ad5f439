// The plane packer: a strided device-to-device copy where the samples are already in the low bits
// and not interleaved, else one thread per sample picking it out of its row and shifting it down
// (kernels/luma_pack_math.h).
#include <cstddef>
#include <cstdint>

#include "kernels/hip_portability.h"
#include "kernels/luma_pack_kernels.h"
#include "kernels/luma_pack_math.h"

namespace ssimd {
namespace {

constexpr int kBlockX = 64;
constexpr int kBlockY = 4;

template <typename Sample>
__global__ void UnpackPlane(const uint8_t* src, size_t src_pitch, int step, int first, int width,
                            int height, int sample_shift, Sample* dst) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  const Sample* row = reinterpret_cast<const Sample*>(src + static_cast<size_t>(y) * src_pitch);
  dst[static_cast<size_t>(y) * width + x] =
      static_cast<Sample>(SoftwareSampleOf(row[static_cast<size_t>(x) * step + first],
                                           sample_shift));
}

}  // namespace

hipError_t LaunchLumaPack(const LumaPackLaunch& l, hipStream_t stream) {
  const bool wide = l.bit_depth > 8;
  const size_t row_bytes = (wide ? 2 : 1) * static_cast<size_t>(l.width);
  if (l.src_step == 1 && l.src_first == 0 && (l.sample_shift == 0 || !wide)) {
    return hipMemcpy2DAsync(l.dst, row_bytes, l.src, l.src_pitch, row_bytes,
                            static_cast<size_t>(l.height), hipMemcpyDeviceToDevice, stream);
  }
  const dim3 block(kBlockX, kBlockY);
  const dim3 grid((l.width + kBlockX - 1) / kBlockX, (l.height + kBlockY - 1) / kBlockY);
  const uint8_t* src = static_cast<const uint8_t*>(l.src);
  if (wide) {
    hipLaunchKernelGGL(UnpackPlane<uint16_t>, grid, block, 0, stream, src, l.src_pitch,
                       l.src_step, l.src_first, l.width, l.height, l.sample_shift,
                       static_cast<uint16_t*>(l.dst));
  } else {
    hipLaunchKernelGGL(UnpackPlane<uint8_t>, grid, block, 0, stream, src, l.src_pitch, l.src_step,
                       l.src_first, l.width, l.height, 0, static_cast<uint8_t*>(l.dst));
  }
  return hipGetLastError();
}

}  // namespace ssimd
