// The per-sample arithmetic of libvmaf's float_ms_ssim (docs/numerics-ms-ssim.md): the size rule,
// the 9x9 low-pass decimation between scales, the per-scale means and the final product of
// per-scale powers. Shared by the CPU engine and, later, device kernels; every operation rounds
// where libvmaf's C code rounds, which requires no FMA contraction (-ffp-contract=off).
//
// Each scale runs the same SSIM window as float_ssim (libvmaf's ms_ssim.c calls the very routine
// float_ssim uses), so the Gaussian taps, the 11-tap dot product and the per-pixel l, c, s terms
// are float_ssim's: GaussianTap, GaussianDot and FloatSsimPixel (kernels/float_ssim_math.h).
//
// Everything above the "host only" line is SSIMD_HD and free of host-only calls. The final
// combination needs pow, which is not correctly rounded anywhere, so it must run where libvmaf's
// did: on the host, with glibc's pow.
#ifndef SSIMD_KERNELS_MS_SSIM_MATH_H_
#define SSIMD_KERNELS_MS_SSIM_MATH_H_

#include <cmath>
#include <cstddef>
#include <limits>

#include "kernels/decimate.h"
#include "kernels/float_ssim_math.h"
#include "kernels/hd.h"
#include "kernels/ssim_constants.h"

namespace ssimd {

inline constexpr int kMsSsimScales = 5;

// libvmaf checks the five scales by halving the full size rounding down, and wants the Gaussian
// window to fit each: floor(n / 16) >= 11, so 176 on both sides.
inline constexpr int kMsSsimMinSide = kGaussianTaps << (kMsSsimScales - 1);

// libvmaf's own test, step by step (the halving here rounds down, unlike the pyramid's).
SSIMD_HD inline bool MsSsimSizeSupported(int width, int height) {
  int w = width;
  int h = height;
  for (int scale = 0; scale < kMsSsimScales; ++scale) {
    if (w < kGaussianTaps || h < kGaussianTaps) return false;
    w /= 2;
    h /= 2;
  }
  return true;
}

// The side of the next scale: half, rounded up (an odd side keeps its last sample's row/column).
SSIMD_HD inline int MsSsimNextSide(int n) { return n / 2 + (n & 1); }

// The decimation filter: a 9x9 table (the 9/7 biorthogonal wavelet's low-pass, tabulated to six
// decimals in libvmaf). It is used as a 2-D table, not as a separable pair: the table's entries
// are rounded independently, so no product of two 1-D taps reproduces them. The table is
// symmetric in both axes and under transposition; entries are the exact binary32 values.
inline constexpr int kLowPassTaps = 9;
inline constexpr int kLowPassRadius = 4;

// Tap at row offset dv and column offset du, both in -4..4.
SSIMD_HD inline float LowPassTap(int dv, int du) {
  int a = dv < 0 ? -dv : dv;
  int b = du < 0 ? -du : du;
  if (a < b) {
    const int t = a;
    a = b;
    b = t;
  }
  switch (a * 8 + b) {  // a >= b, both 0..4
    case 0: return 0x1.743aa8p-2f;     // 0.363505
    case 8: return 0x1.497e14p-3f;     // 0.160885
    case 9: return 0x1.23a9f4p-4f;     // 0.071207
    case 16: return -0x1.823e9ep-5f;   // -0.047149
    case 17: return -0x1.55e28ap-6f;   // -0.020867
    case 18: return 0x1.90c0aep-8f;    // 0.006115
    case 24: return -0x1.4c76d2p-7f;   // -0.010146
    case 25: return -0x1.2641b4p-8f;   // -0.004490
    case 26: return 0x1.58fb44p-10f;   // 0.001316
    case 27: return 0x1.28bf3cp-12f;   // 0.000283
    case 32: return 0x1.080304p-6f;    // 0.016114
    case 33: return 0x1.d3671ap-8f;    // 0.007132
    case 34: return -0x1.11f0c4p-9f;   // -0.002090
    case 35: return -0x1.d7dbf4p-12f;  // -0.000450
    default: return 0x1.765776p-11f;   // 0.000714 (a = b = 4)
  }
}

// Sample (x, y) of the next scale, from a tightly packed width x height binary32 plane: the 9x9
// window centred on (2x, 2y), edges mirrored without repeating the edge sample (-1 -> 0,
// n -> n-1), each product rounded to binary32 and added to one binary64 sum, rows top to bottom
// and each row left to right; the sum is rounded once to binary32. The taps are mixed in sign and
// not dyadic, so the binary64 sum is not exact and its order is part of the result.
// Requires width, height >= 5 so that one reflection stays inside the plane (the size rule
// guarantees far more).
SSIMD_HD inline float LowPassDecimatePixel(const float* plane, int width, int height, int x,
                                           int y) {
  double acc = 0.0;
  for (int dv = -kLowPassRadius; dv <= kLowPassRadius; ++dv) {
    const size_t row_index = static_cast<size_t>(ReflectSymmetric(2 * y + dv, height));
    const float* row = plane + row_index * static_cast<size_t>(width);
    for (int du = -kLowPassRadius; du <= kLowPassRadius; ++du) {
      const float product = row[ReflectSymmetric(2 * x + du, width)] * LowPassTap(dv, du);
      acc += static_cast<double>(product);
    }
  }
  return static_cast<float>(acc);
}

// One scale's mean of l, c or s: the raster-order binary64 sum over the valid positions divided
// by their count (a C int product) and rounded to binary32, as libvmaf hands it back.
SSIMD_HD inline float MsSsimScaleMean(double sum, int valid_width, int valid_height) {
  const int n = valid_width * valid_height;
  return static_cast<float>(sum / static_cast<double>(n));
}

// The per-scale exponents of Wang's MS-SSIM, as libvmaf's binary32 constants: luminance counts
// only at the coarsest scale; contrast and structure share one weight per scale.
SSIMD_HD inline float MsSsimLuminanceExponent(int scale) {
  return scale == kMsSsimScales - 1 ? 0x1.10ff98p-3f : 0.0f;  // 0.1333 at scale 4
}

SSIMD_HD inline float MsSsimContrastStructureExponent(int scale) {
  switch (scale) {
    case 0: return 0x1.6f0068p-5f;  // 0.0448
    case 1: return 0x1.247454p-2f;  // 0.2856
    case 2: return 0x1.334d6ap-2f;  // 0.3001
    case 3: return 0x1.e3f142p-3f;  // 0.2363
    default: return 0x1.10ff98p-3f;  // 0.1333
  }
}

// ---- Host only: pow is not correctly rounded, so only glibc's reproduces libvmaf. ----

// One scale's factor: pow(l, alpha) * pow(c, beta) * pow(s, gamma), each pow in binary64 of the
// binary32 mean and exponent, multiplied left to right. pow(x, 0) is exactly 1 (even for NaN), so
// the luminance of scales 0..3 never shows; a negative structure mean gives NaN, as in libvmaf.
inline double MsSsimScaleFactor(int scale, float l, float c, float s) {
  const double gamma = static_cast<double>(MsSsimContrastStructureExponent(scale));
  return std::pow(static_cast<double>(l), static_cast<double>(MsSsimLuminanceExponent(scale))) *
         std::pow(static_cast<double>(c), gamma) * std::pow(static_cast<double>(s), gamma);
}

// The score: 1.0 multiplied by each scale's factor in turn, scale 0 first. libvmaf gives up (no
// score at all) when the running product is +inf after any scale; so does this, returning false.
inline bool MsSsimCombine(const float (&l)[kMsSsimScales], const float (&c)[kMsSsimScales],
                          const float (&s)[kMsSsimScales], double* score) {
  double product = 1.0;
  for (int scale = 0; scale < kMsSsimScales; ++scale) {
    product *= MsSsimScaleFactor(scale, l[scale], c[scale], s[scale]);
    if (product == std::numeric_limits<double>::infinity()) return false;
  }
  *score = product;
  return true;
}

}  // namespace ssimd

#endif  // SSIMD_KERNELS_MS_SSIM_MATH_H_
