// The per-pixel arithmetic of the integer `ssim` extractor (docs/numerics.md §10-§12): exact int64
// window moments over a 9x9 window clipped at the picture's edges, then one binary64 expression in
// libvmaf's operation order. Shared by the CPU engine and the HIP kernels.
#ifndef SSIMD_KERNELS_INTEGER_SSIM_MATH_H_
#define SSIMD_KERNELS_INTEGER_SSIM_MATH_H_

#include <cstdint>

#include "kernels/hd.h"
#include "kernels/ssim_constants.h"

namespace ssimd {

// Window moments of one pixel (or, after the horizontal pass, of one row segment).
struct IntegerMoments {
  int64_t mx = 0;  // sum k*ref
  int64_t my = 0;  // sum k*dist
  int64_t xx = 0;  // sum k*ref*ref
  int64_t xy = 0;  // sum k*ref*dist
  int64_t yy = 0;  // sum k*dist*dist
  int64_t w = 0;   // sum k (less than 256*256 where the window is clipped)
};

// Adds one sample pair with window weight k (int64 products: no overflow at 16 bit).
SSIMD_HD inline void AccumulateMoments(IntegerMoments& m, int64_t k, int64_t ref, int64_t dist) {
  m.mx += k * ref;
  m.my += k * dist;
  m.xx += k * ref * ref;
  m.xy += k * ref * dist;
  m.yy += k * dist * dist;
  m.w += k;
}

// Adds a horizontal moment with vertical weight k.
SSIMD_HD inline void AccumulateWeighted(IntegerMoments& m, int64_t k, const IntegerMoments& row) {
  m.mx += k * row.mx;
  m.my += k * row.my;
  m.xx += k * row.xx;
  m.xy += k * row.xy;
  m.yy += k * row.yy;
  m.w += k * row.w;
}

// Sum of the window taps that fall inside [0, n) around position p (the clipped window weight).
SSIMD_HD inline int64_t ClippedWindowWeight(int p, int n) {
  int64_t w = 0;
  for (int t = 0; t < kIntegerTaps; ++t) {
    const int q = p + t - kIntegerRadius;
    if (q >= 0 && q < n) w += IntegerTap(t);
  }
  return w;
}

// peak^2 as a double: (2^bit_depth - 1)^2. libvmaf forms it in 32-bit int, which wraps at 16 bit;
// ssimd uses the correct value at every depth (identical to libvmaf up to 15 bits). See
// docs/adr/0011-integer-ssim-16-bit-constants.md.
SSIMD_HD inline double IntegerSsimPeakSquared(int bit_depth) {
  const double peak = static_cast<double>((int64_t{1} << bit_depth) - 1);
  return peak * peak;
}

// One pixel's weighted SSIM term, W * SSIM(x, y), in libvmaf's exact binary64 operation order.
SSIMD_HD inline double IntegerSsimPixel(const IntegerMoments& m, double peak_squared) {
  const double k1_squared = 0.01 * 0.01;
  const double k2_squared = 0.03 * 0.03;
  const double w = static_cast<double>(m.w);
  const double c1 = ((peak_squared * k1_squared) * w) * w;
  const double c2 = ((peak_squared * k2_squared) * w) * w;
  const double mx = static_cast<double>(m.mx);
  const double my = static_cast<double>(m.my);
  const double mx2 = mx * mx;
  const double mxy = mx * my;
  const double my2 = my * my;
  const double num = (w * (2.0 * mxy + c1)) * (c2 + 2.0 * (static_cast<double>(m.xy) * w - mxy));
  const double den = ((mx2 + my2) + c1) *
                     ((((static_cast<double>(m.xx) * w - mx2) + static_cast<double>(m.yy) * w) -
                       my2) +
                      c2);
  return num / den;
}

// The GPU's vertical pass runs in blocks of this many threads, one per pixel (device-free here so
// that the host can bound the block-order sum: engine/gpu/exact_sum.h).
inline constexpr int kIntegerSsimBlockX = 32;
inline constexpr int kIntegerSsimBlockY = 8;

// Thread blocks (and so partial-sum records) of the vertical pass.
inline int IntegerSsimPartialBlocks(int width, int height) {
  const int bx = (width + kIntegerSsimBlockX - 1) / kIntegerSsimBlockX;
  const int by = (height + kIntegerSsimBlockY - 1) / kIntegerSsimBlockY;
  return bx * by;
}

}  // namespace ssimd

#endif  // SSIMD_KERNELS_INTEGER_SSIM_MATH_H_
