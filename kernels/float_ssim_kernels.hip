// float_ssim on the device: decimation, horizontal and vertical Gaussian passes, per-pixel terms
// and per-block sums. All arithmetic comes from the headers shared with the CPU engine
// (decimate.h, float_ssim_math.h); this file only maps it onto threads. Exactness needs the
// toolchain flags in bazel/hip.bzl (no FMA contraction, IEEE division and square root).
#include <cstddef>
#include <cstdint>

#include "kernels/block_sums.h"
#include "kernels/decimate.h"
#include "kernels/float_ssim_kernels.h"
#include "kernels/float_ssim_math.h"
#include "kernels/hip_portability.h"
#include "kernels/ssim_constants.h"

namespace ssimd {
namespace {

constexpr int kThreads = kFloatSsimBlockX * kFloatSsimBlockY;

dim3 GridFor(int width, int height) {
  return dim3((width + kFloatSsimBlockX - 1) / kFloatSsimBlockX,
              (height + kFloatSsimBlockY - 1) / kFloatSsimBlockY);
}

dim3 Block() { return dim3(kFloatSsimBlockX, kFloatSsimBlockY); }

// ---- Decimation --------------------------------------------------------------------------------

// The bit depth is a template argument so that the sample scaling (a division by a power of two)
// folds into an exact multiplication; the arithmetic is DecimatePixel's either way.
template <typename Sample, int kBitDepth>
__global__ void FloatSsimDecimate(const Sample* ref, const Sample* dist, size_t stride, int width,
                                  int height, int factor, float tap, float* ref_out,
                                  float* dist_out, int out_width, int out_height) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= out_width || y >= out_height) return;
  const size_t i = static_cast<size_t>(y) * out_width + x;
  ref_out[i] = DecimatePixel(ref, stride, width, height, kBitDepth, factor, tap, x, y);
  dist_out[i] = DecimatePixel(dist, stride, width, height, kBitDepth, factor, tap, x, y);
}

// ---- Horizontal pass ---------------------------------------------------------------------------

// Reads a raw plane through the CPU's sample conversion (bit depth fixed, as for decimation).
template <typename Sample, int kBitDepth>
struct RawRow {
  const Sample* plane;
  size_t stride;
  __device__ float operator()(int x, int y) const {
    return LoadScaled(plane, stride, x, y, kBitDepth);
  }
};

// Reads a packed binary32 plane (the decimated planes).
struct FloatRow {
  const float* plane;
  int width;
  __device__ float operator()(int x, int y) const {
    return plane[static_cast<size_t>(y) * width + x];
  }
};

// The one body behind every horizontal entry point: output (x, y) filters input columns
// x .. x+10 of row y for R, D and the per-pixel products f32(R*R), f32(D*D), f32(R*D).
template <typename Loader>
__device__ void HorizontalBody(const Loader& ref, const Loader& dist, int width, int height,
                               const FloatSsimFilteredPlanes& out) {
  const int valid_width = width - 2 * kGaussianRadius;
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= valid_width || y >= height) return;
  float r[kGaussianTaps], d[kGaussianTaps], rr[kGaussianTaps], dd[kGaussianTaps], rd[kGaussianTaps];
  for (int t = 0; t < kGaussianTaps; ++t) {
    r[t] = ref(x + t, y);
    d[t] = dist(x + t, y);
    rr[t] = r[t] * r[t];
    dd[t] = d[t] * d[t];
    rd[t] = r[t] * d[t];
  }
  const size_t i = static_cast<size_t>(y) * valid_width + x;
  out.mu_r[i] = GaussianDot(r);
  out.mu_d[i] = GaussianDot(d);
  out.rr[i] = GaussianDot(rr);
  out.dd[i] = GaussianDot(dd);
  out.rd[i] = GaussianDot(rd);
}

__global__ void FloatSsimHorizontal8(const uint8_t* ref, const uint8_t* dist, size_t stride,
                                     int width, int height, FloatSsimFilteredPlanes out) {
  HorizontalBody(RawRow<uint8_t, 8>{ref, stride}, RawRow<uint8_t, 8>{dist, stride}, width, height,
                 out);
}

template <int kBitDepth>
__global__ void FloatSsimHorizontal16(const uint16_t* ref, const uint16_t* dist, size_t stride,
                                      int width, int height, FloatSsimFilteredPlanes out) {
  HorizontalBody(RawRow<uint16_t, kBitDepth>{ref, stride},
                 RawRow<uint16_t, kBitDepth>{dist, stride}, width, height, out);
}

__global__ void FloatSsimHorizontalF32(const float* ref, const float* dist, int width, int height,
                                       FloatSsimFilteredPlanes out) {
  HorizontalBody(FloatRow{ref, width}, FloatRow{dist, width}, width, height, out);
}

// ---- Vertical pass, per-pixel terms, block sums -------------------------------------------------

__device__ float VerticalDot(const float* plane, int valid_width, int x, int y) {
  float v[kGaussianTaps];
  for (int t = 0; t < kGaussianTaps; ++t)
    v[t] = plane[static_cast<size_t>(y + t) * valid_width + x];
  return GaussianDot(v);
}

template <int kQuantities>
__global__ void __launch_bounds__(kThreads)
    FloatSsimVertical(FloatSsimFilteredPlanes in, int valid_width, int valid_height,
                      double* partials, double* terms) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  double values[kQuantities];
  for (int q = 0; q < kQuantities; ++q) values[q] = 0.0;
  if (x < valid_width && y < valid_height) {
    GaussianMoments m;
    m.mu_r = VerticalDot(in.mu_r, valid_width, x, y);
    m.mu_d = VerticalDot(in.mu_d, valid_width, x, y);
    m.rr = VerticalDot(in.rr, valid_width, x, y);
    m.dd = VerticalDot(in.dd, valid_width, x, y);
    m.rd = VerticalDot(in.rd, valid_width, x, y);
    const SsimPixelTerms t = FloatSsimPixel(m);
    values[0] = t.ssim;
    if (kQuantities == kFloatSsimQuantities) {
      values[1] = t.l;
      values[2] = t.c;
      values[3] = t.s;
    }
    if (terms != nullptr) {
      const size_t n = static_cast<size_t>(valid_width) * valid_height;
      const size_t i = static_cast<size_t>(y) * valid_width + x;
      for (int q = 0; q < kQuantities; ++q) terms[q * n + i] = values[q];
    }
  }
  const size_t block = static_cast<size_t>(blockIdx.y) * gridDim.x + blockIdx.x;
  WriteBlockSums<kThreads, kQuantities>(values, partials + block * 2 * kQuantities);
}

}  // namespace

hipError_t LaunchFloatSsimDecimate(const void* ref, const void* dist, size_t stride, int width,
                                   int height, int bit_depth, int factor, float tap, float* ref_out,
                                   float* dist_out, int out_width, int out_height,
                                   hipStream_t stream) {
  const dim3 grid = GridFor(out_width, out_height);
  const auto* ref8 = static_cast<const uint8_t*>(ref);
  const auto* dist8 = static_cast<const uint8_t*>(dist);
  const auto* ref16 = static_cast<const uint16_t*>(ref);
  const auto* dist16 = static_cast<const uint16_t*>(dist);
  switch (bit_depth) {
    case 8:
      hipLaunchKernelGGL((FloatSsimDecimate<uint8_t, 8>), grid, Block(), 0, stream, ref8, dist8,
                         stride, width, height, factor, tap, ref_out, dist_out, out_width,
                         out_height);
      break;
    case 10:
      hipLaunchKernelGGL((FloatSsimDecimate<uint16_t, 10>), grid, Block(), 0, stream, ref16, dist16,
                         stride, width, height, factor, tap, ref_out, dist_out, out_width,
                         out_height);
      break;
    case 12:
      hipLaunchKernelGGL((FloatSsimDecimate<uint16_t, 12>), grid, Block(), 0, stream, ref16, dist16,
                         stride, width, height, factor, tap, ref_out, dist_out, out_width,
                         out_height);
      break;
    case 16:
      hipLaunchKernelGGL((FloatSsimDecimate<uint16_t, 16>), grid, Block(), 0, stream, ref16, dist16,
                         stride, width, height, factor, tap, ref_out, dist_out, out_width,
                         out_height);
      break;
    default:
      return hipErrorInvalidValue;
  }
  return hipGetLastError();
}

hipError_t LaunchFloatSsimHorizontalRaw(const void* ref, const void* dist, size_t stride, int width,
                                        int height, int bit_depth,
                                        const FloatSsimFilteredPlanes& out, hipStream_t stream) {
  const dim3 grid = GridFor(width - 2 * kGaussianRadius, height);
  const auto* ref16 = static_cast<const uint16_t*>(ref);
  const auto* dist16 = static_cast<const uint16_t*>(dist);
  switch (bit_depth) {
    case 8:
      hipLaunchKernelGGL(FloatSsimHorizontal8, grid, Block(), 0, stream,
                         static_cast<const uint8_t*>(ref), static_cast<const uint8_t*>(dist),
                         stride, width, height, out);
      break;
    case 10:
      hipLaunchKernelGGL(FloatSsimHorizontal16<10>, grid, Block(), 0, stream, ref16, dist16, stride,
                         width, height, out);
      break;
    case 12:
      hipLaunchKernelGGL(FloatSsimHorizontal16<12>, grid, Block(), 0, stream, ref16, dist16, stride,
                         width, height, out);
      break;
    case 16:
      hipLaunchKernelGGL(FloatSsimHorizontal16<16>, grid, Block(), 0, stream, ref16, dist16, stride,
                         width, height, out);
      break;
    default:
      return hipErrorInvalidValue;
  }
  return hipGetLastError();
}

hipError_t LaunchFloatSsimHorizontalF32(const float* ref, const float* dist, int width, int height,
                                        const FloatSsimFilteredPlanes& out, hipStream_t stream) {
  const dim3 grid = GridFor(width - 2 * kGaussianRadius, height);
  hipLaunchKernelGGL(FloatSsimHorizontalF32, grid, Block(), 0, stream, ref, dist, width, height,
                     out);
  return hipGetLastError();
}

hipError_t LaunchFloatSsimVertical(const FloatSsimFilteredPlanes& in, int valid_width,
                                   int valid_height, int quantities, double* partials,
                                   double* terms, hipStream_t stream) {
  const dim3 grid = GridFor(valid_width, valid_height);
  if (quantities == kFloatSsimQuantities) {
    hipLaunchKernelGGL(FloatSsimVertical<kFloatSsimQuantities>, grid, Block(), 0, stream, in,
                       valid_width, valid_height, partials, terms);
  } else {
    hipLaunchKernelGGL(FloatSsimVertical<1>, grid, Block(), 0, stream, in, valid_width,
                       valid_height, partials, terms);
  }
  return hipGetLastError();
}

}  // namespace ssimd
