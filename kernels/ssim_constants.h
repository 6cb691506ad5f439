// Constants of libvmaf's SSIM extractors, as exact binary32 / integer values
// (docs/numerics.md §5, §6, §10, §12).
#ifndef SSIMD_KERNELS_SSIM_CONSTANTS_H_
#define SSIMD_KERNELS_SSIM_CONSTANTS_H_

#include <cstdint>

#include "kernels/hd.h"

namespace ssimd {

// float_ssim: 11-tap Gaussian (sigma 1.5) tabulated to 6 decimals in libvmaf; the taps sum to
// 1.000002, and libvmaf uses them unnormalised. Written as the exact binary32 values.
inline constexpr int kGaussianTaps = 11;
inline constexpr int kGaussianRadius = 5;

SSIMD_HD inline float GaussianTap(int i) {
  switch (i) {
    case 0: case 10: return 0x1.0d7beap-10f;  // 0.001028f
    case 1: case 9: return 0x1.f2021p-8f;     // 0.007599f
    case 2: case 8: return 0x1.26eb92p-5f;    // 0.036001f
    case 3: case 7: return 0x1.bff152p-4f;    // 0.109361f
    case 4: case 6: return 0x1.b43c7ep-3f;    // 0.213006f
    default: return 0x1.106574p-2f;           // 0.266012f (centre)
  }
}

// C1 = (K1*L)^2, C2 = (K2*L)^2, C3 = C2/2 with K1 = 0.01f, K2 = 0.03f, L = 255, each step binary32.
// L stays 255 at every bit depth because samples are scaled to the 8-bit range first.
inline constexpr float kSsimC1 = 0x1.a028f4p+2f;
inline constexpr float kSsimC2 = 0x1.d42e12p+5f;
inline constexpr float kSsimC3 = 0x1.d42e12p+4f;

// Integer ssim: 9-tap integer window [2, 9, 28, 55, 68, 55, 28, 9, 2] (sums to 256).
inline constexpr int kIntegerTaps = 9;
inline constexpr int kIntegerRadius = 4;

SSIMD_HD inline int64_t IntegerTap(int i) {
  switch (i) {
    case 0: case 8: return 2;
    case 1: case 7: return 9;
    case 2: case 6: return 28;
    case 3: case 5: return 55;
    default: return 68;
  }
}

}  // namespace ssimd

#endif  // SSIMD_KERNELS_SSIM_CONSTANTS_H_
