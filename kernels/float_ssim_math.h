// The per-sample arithmetic of libvmaf's float_ssim: the 11-tap Gaussian dot product and the
// per-pixel SSIM term (docs/numerics.md §5-§7). Shared by the CPU engine and the HIP kernels;
// every operation is written so that it rounds exactly where libvmaf's C code rounds, which
// requires no FMA contraction (-ffp-contract=off, nvcc --fmad=false).
#ifndef SSIMD_KERNELS_FLOAT_SSIM_MATH_H_
#define SSIMD_KERNELS_FLOAT_SSIM_MATH_H_

#include <cmath>

#include "kernels/hd.h"
#include "kernels/ssim_constants.h"

namespace ssimd {

// One output of the valid-region convolution: sum over taps 0..10, in that order, of
// f64(f32(value[t] * G[t])) in binary64, rounded once to binary32.
SSIMD_HD inline float GaussianDot(const float (&values)[kGaussianTaps]) {
  double acc = 0.0;
  for (int t = 0; t < kGaussianTaps; ++t) {
    const float product = values[t] * GaussianTap(t);
    acc += static_cast<double>(product);
  }
  return static_cast<float>(acc);
}

// The five filtered quantities at one valid position.
struct GaussianMoments {
  float mu_r;
  float mu_d;
  float rr;  // filtered f32(R*R)
  float dd;  // filtered f32(D*D)
  float rd;  // filtered f32(R*D)
};

// One pixel's luminance, contrast, structure and SSIM terms, as libvmaf computes them.
struct SsimPixelTerms {
  double l;
  double c;
  double s;
  double ssim;
};

SSIMD_HD inline SsimPixelTerms FloatSsimPixel(const GaussianMoments& m) {
  const float a = m.mu_r;
  const float b = m.mu_d;
  const float aa = a * a;
  const float bb = b * b;
  const float ab = a * b;
  float var_r = m.rr - aa;
  if (var_r < 0.0f) var_r = 0.0f;
  float var_d = m.dd - bb;
  if (var_d < 0.0f) var_d = 0.0f;
  const float cov = m.rd - ab;
  const float var_product = var_r * var_d;
  const float sigma_root = sqrtf(var_product);  // correctly rounded, as libvmaf's sqrt/sqrtf

  SsimPixelTerms out;
  // Numerator in binary64 (2a*b is exact there, one rounding at + C1); denominator in binary32.
  const float l_den = (aa + bb) + kSsimC1;
  out.l = (2.0 * static_cast<double>(a) * static_cast<double>(b) + static_cast<double>(kSsimC1)) /
          static_cast<double>(l_den);
  const float c_den = (var_r + var_d) + kSsimC2;
  out.c = (2.0 * static_cast<double>(sigma_root) + static_cast<double>(kSsimC2)) /
          static_cast<double>(c_den);
  // A flat or identical window: negative covariance with zero spread counts as no structure.
  const float cov_clamped = (cov < 0.0f && sigma_root <= 0.0f) ? 0.0f : cov;
  const float s_num = cov_clamped + kSsimC3;
  const float s_den = sigma_root + kSsimC3;
  out.s = static_cast<double>(s_num / s_den);
  out.ssim = (out.l * out.c) * out.s;
  return out;
}

// The frame score from a raster-order binary64 sum: f32(sum / N) widened, where N = w' * h' as a C
// int product. N <= 0 (pictures smaller than the window) gives libvmaf's NaN / -0 / +0
// (docs/numerics.md §9).
SSIMD_HD inline double FloatSsimMean(double sum, int valid_width, int valid_height) {
  const int n = valid_width * valid_height;
  return static_cast<double>(static_cast<float>(sum / static_cast<double>(n)));
}

}  // namespace ssimd

#endif  // SSIMD_KERNELS_FLOAT_SSIM_MATH_H_
