// psnr's squared-error sum: a block per band of rows, each thread a strided run of samples, a
// tree reduction in shared memory, and one 64-bit atomic add per block. Integer throughout, so the
// result is the host's exact sum whatever the schedule.
#include <cstddef>
#include <cstdint>

#include "kernels/hip_portability.h"
#include "kernels/psnr_kernels.h"
#include "kernels/psnr_math.h"

namespace ssimd {
namespace {

constexpr int kThreads = 256;
constexpr int kRowsPerBlock = 4;

template <typename Sample>
__global__ void SumSquaredErrors(const uint8_t* reference, size_t reference_pitch,
                                 const uint8_t* distorted, size_t distorted_pitch, int width,
                                 int height, unsigned long long* sse) {  // NOLINT(runtime/int)
  __shared__ uint64_t partial[kThreads];
  const int first_row = blockIdx.x * kRowsPerBlock;
  const int last_row = min(first_row + kRowsPerBlock, height);
  uint64_t sum = 0;
  for (int y = first_row; y < last_row; ++y) {
    const Sample* ref = reinterpret_cast<const Sample*>(reference + y * reference_pitch);
    const Sample* dis = reinterpret_cast<const Sample*>(distorted + y * distorted_pitch);
    for (int x = threadIdx.x; x < width; x += kThreads) {
      sum += SampleSquaredError(ref[x], dis[x]);
    }
  }
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (int half = kThreads / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) partial[threadIdx.x] += partial[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    atomicAdd(sse, static_cast<unsigned long long>(partial[0]));  // NOLINT(runtime/int)
  }
}

}  // namespace

hipError_t LaunchPsnrSse(const PsnrSseLaunch& l, hipStream_t stream) {
  if (hipError_t e = hipMemsetAsync(l.sse, 0, sizeof(*l.sse), stream); e != hipSuccess) return e;
  if (l.width <= 0 || l.height <= 0) return hipSuccess;
  const dim3 grid((l.height + kRowsPerBlock - 1) / kRowsPerBlock);
  const size_t packed = static_cast<size_t>(l.width) * (l.bit_depth > 8 ? 2 : 1);
  const size_t reference_pitch = l.reference_pitch != 0 ? l.reference_pitch : packed;
  const size_t distorted_pitch = l.distorted_pitch != 0 ? l.distorted_pitch : packed;
  const auto* reference = static_cast<const uint8_t*>(l.reference);
  const auto* distorted = static_cast<const uint8_t*>(l.distorted);
  if (l.bit_depth > 8) {
    hipLaunchKernelGGL(SumSquaredErrors<uint16_t>, grid, dim3(kThreads), 0, stream, reference,
                       reference_pitch, distorted, distorted_pitch, l.width, l.height, l.sse);
  } else {
    hipLaunchKernelGGL(SumSquaredErrors<uint8_t>, grid, dim3(kThreads), 0, stream, reference,
                       reference_pitch, distorted, distorted_pitch, l.width, l.height, l.sse);
  }
  return hipGetLastError();
}

}  // namespace ssimd
