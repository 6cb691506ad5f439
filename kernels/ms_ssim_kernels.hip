// float_ms_ssim's pyramid on the device: the scale-0 binary32 planes and the 9x9 low-pass
// decimation between scales. The arithmetic is the CPU engine's (LoadScaled, LowPassDecimatePixel
// from the shared headers), one thread per output sample, so every sample carries the host loop's
// binary64 sum in the host loop's order; this file only maps it onto threads. Exactness needs the
// toolchain flags in bazel/hip.bzl (no FMA contraction, no flush to zero).
#include "kernels/ms_ssim_kernels.h"  // first: it brings the HIP runtime the shared headers need

#include <cstddef>
#include <cstdint>

#include "kernels/decimate.h"
#include "kernels/hip_portability.h"
#include "kernels/ms_ssim_math.h"

namespace ssimd {
namespace {

constexpr int kBlockX = 32;
constexpr int kBlockY = 8;

dim3 GridFor(int width, int height) {
  return dim3((width + kBlockX - 1) / kBlockX, (height + kBlockY - 1) / kBlockY);
}

dim3 Block() { return dim3(kBlockX, kBlockY); }

// The bit depth is a template argument so that the scaling (a division by a power of two) folds
// into an exact multiplication; the value is LoadScaled's either way.
template <typename Sample, int kBitDepth>
__global__ void MsSsimLoad(const Sample* ref, const Sample* dist, size_t stride, int width,
                           int height, float* ref_out, float* dist_out) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  const size_t i = static_cast<size_t>(y) * width + x;
  ref_out[i] = LoadScaled(ref, stride, x, y, kBitDepth);
  dist_out[i] = LoadScaled(dist, stride, x, y, kBitDepth);
}

// Both planes in one launch: they are the same size and independent.
__global__ void MsSsimDecimate(const float* ref, const float* dist, int width, int height,
                               float* ref_out, float* dist_out, int out_width, int out_height) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= out_width || y >= out_height) return;
  const size_t i = static_cast<size_t>(y) * out_width + x;
  ref_out[i] = LowPassDecimatePixel(ref, width, height, x, y);
  dist_out[i] = LowPassDecimatePixel(dist, width, height, x, y);
}

template <int kBitDepth>
void LaunchLoad16(const void* ref, const void* dist, size_t stride, int width, int height,
                  float* ref_out, float* dist_out, hipStream_t stream) {
  hipLaunchKernelGGL((MsSsimLoad<uint16_t, kBitDepth>), GridFor(width, height), Block(), 0, stream,
                     static_cast<const uint16_t*>(ref), static_cast<const uint16_t*>(dist), stride,
                     width, height, ref_out, dist_out);
}

}  // namespace

hipError_t LaunchMsSsimLoad(const void* ref, const void* dist, size_t stride, int width,
                            int height, int bit_depth, float* ref_out, float* dist_out,
                            hipStream_t stream) {
  switch (bit_depth) {
    case 8:
      hipLaunchKernelGGL((MsSsimLoad<uint8_t, 8>), GridFor(width, height), Block(), 0, stream,
                         static_cast<const uint8_t*>(ref), static_cast<const uint8_t*>(dist),
                         stride, width, height, ref_out, dist_out);
      break;
    case 10:
      LaunchLoad16<10>(ref, dist, stride, width, height, ref_out, dist_out, stream);
      break;
    case 12:
      LaunchLoad16<12>(ref, dist, stride, width, height, ref_out, dist_out, stream);
      break;
    case 16:
      LaunchLoad16<16>(ref, dist, stride, width, height, ref_out, dist_out, stream);
      break;
    default:
      return hipErrorInvalidValue;
  }
  return hipGetLastError();
}

hipError_t LaunchMsSsimDecimate(const float* ref, const float* dist, int width, int height,
                                float* ref_out, float* dist_out, hipStream_t stream) {
  const int out_width = MsSsimNextSide(width);
  const int out_height = MsSsimNextSide(height);
  hipLaunchKernelGGL(MsSsimDecimate, GridFor(out_width, out_height), Block(), 0, stream, ref, dist,
                     width, height, ref_out, dist_out, out_width, out_height);
  return hipGetLastError();
}

}  // namespace ssimd
