// The arithmetic of libvmaf's `psnr` feature extractor (the integer one, registered as "psnr":
// libvmaf/src/feature/integer_psnr.c at Netflix/vmaf f85a8536). A plane's sum of squared errors is
// an exact integer, so it may be summed in any order, on the host or on a device. Turning it into
// mse, psnr and the pooled apsnr follows libvmaf's binary64 steps one for one, with its integer
// types where they matter (32-bit products, a 64-bit product that may wrap).
//
// The log10 steps run on the host only: log10 is not correctly rounded on GPUs (as for
// kernels/db.h), so a device computes the sums and the host the scores.
#ifndef SSIMD_KERNELS_PSNR_MATH_H_
#define SSIMD_KERNELS_PSNR_MATH_H_

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "kernels/hd.h"

namespace ssimd {

// (ref - dist)^2 of one sample pair; it fits 32 unsigned bits (65535^2 < 2^32).
SSIMD_HD inline uint64_t SampleSquaredError(uint32_t ref, uint32_t dist) {
  const uint64_t magnitude = ref > dist ? ref - dist : dist - ref;
  return magnitude * magnitude;
}

// Sum of (ref - dist)^2 over one row, kept in 64 bits. libvmaf sums an 8-bit row in 32 bits,
// which could wrap only beyond 66052 samples a row; ssimd's pictures are at most 32768 wide, so
// the exact sum is libvmaf's.
template <typename Sample>
SSIMD_HD inline uint64_t RowSquaredError(const Sample* ref, const Sample* dist, int width) {
  uint64_t sum = 0;
  for (int x = 0; x < width; ++x) sum += SampleSquaredError(ref[x], dist[x]);
  return sum;
}

// Sum of squared errors over a plane; strides count samples, not bytes.
template <typename Sample>
SSIMD_HD inline uint64_t PlaneSquaredError(const Sample* ref, size_t ref_stride,
                                           const Sample* dist, size_t dist_stride, int width,
                                           int height) {
  uint64_t sum = 0;
  for (int y = 0; y < height; ++y) {
    sum += RowSquaredError(ref + static_cast<size_t>(y) * ref_stride,
                           dist + static_cast<size_t>(y) * dist_stride, width);
  }
  return sum;
}

// Pixels of a plane as libvmaf counts them: an unsigned 32-bit product (ssimd's 2^28-pixel limit
// keeps it exact).
SSIMD_HD inline uint32_t PsnrPlanePixels(int width, int height) {
  return static_cast<uint32_t>(width) * static_cast<uint32_t>(height);
}

// The peak signal: 2^b - 1, or with reduced_hbd_peak 255 * 2^(b-8), the 8-bit peak scaled as
// high-bit-depth content scaled up from 8 bits would have it. Both are 255 at 8 bits.
SSIMD_HD inline uint32_t PsnrPeak(int bit_depth, bool reduced_hbd_peak) {
  return reduced_hbd_peak ? (255u << (bit_depth - 8)) : ((1u << bit_depth) - 1u);
}

// peak^2 in 32 unsigned bits, as libvmaf forms it; 65535^2 still fits, so it never wraps.
SSIMD_HD inline uint32_t PsnrPeakSquared(uint32_t peak) { return peak * peak; }

// The highest psnr reported for a plane. Without min_sse: 6*b + 12 dB (60 at 8 bits, 72 at 10,
// 84 at 12, 108 at 16). With min_sse > 0: the psnr of an error of min_sse spread over the plane,
// rounded up, ceil(10*log10(peak^2 / (min_sse / pixels))). An empty plane (a 1-pixel-wide 4:2:0
// chroma) then divides by zero and gets -inf, as in libvmaf.
inline double PsnrMax(int bit_depth, uint32_t peak, double min_sse, uint32_t plane_pixels) {
  if (min_sse == 0.0) return static_cast<double>(6u * static_cast<uint32_t>(bit_depth) + 12u);
  const double mse = min_sse / static_cast<double>(plane_pixels);
  return std::ceil(10.0 * std::log10(static_cast<double>(PsnrPeakSquared(peak)) / mse));
}

// Mean squared error, one binary64 division; an empty plane gives 0/0 = NaN, as libvmaf's does.
SSIMD_HD inline double PsnrMse(uint64_t sse, uint32_t plane_pixels) {
  return static_cast<double>(sse) / static_cast<double>(plane_pixels);
}

// min(10*log10(peak^2 / max(mse, 1e-16)), psnr_max) with C's comparisons: a NaN mse takes the
// 1e-16 floor, so identical and empty planes both give psnr_max.
inline double PsnrFromMse(double mse, uint32_t peak, double psnr_max) {
  const double floored = mse > 1e-16 ? mse : 1e-16;
  const double psnr = 10.0 * std::log10(static_cast<double>(PsnrPeakSquared(peak)) / floored);
  return psnr < psnr_max ? psnr : psnr_max;
}

// Pooled psnr over all frames from the summed errors and pixels:
// 10*((log10(peak^2) + log10(pixels)) - log10(sse)), capped at
// ceil(10*log10(peak^2 * pixels * 2)). The cap's product is libvmaf's unsigned 64-bit one and
// wraps as it does (above about 2^31 pixels at 16 bits). With no error the pooled value is +inf
// and the cap is returned; with no pixels at all (chroma not scored) the result is -inf.
inline double ApsnrScore(uint64_t sse, uint64_t pixels, uint32_t peak) {
  const uint32_t peak_squared = PsnrPeakSquared(peak);
  const double apsnr =
      10.0 * ((std::log10(static_cast<double>(peak_squared)) +
               std::log10(static_cast<double>(pixels))) -
              std::log10(static_cast<double>(sse)));
  const uint64_t cap_argument = static_cast<uint64_t>(peak_squared) * pixels * 2u;
  const double cap = std::ceil(10.0 * std::log10(static_cast<double>(cap_argument)));
  return apsnr < cap ? apsnr : cap;
}

}  // namespace ssimd

#endif  // SSIMD_KERNELS_PSNR_MATH_H_
