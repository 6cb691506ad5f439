// libvmaf's float_ssim decimation (box low-pass + decimate), one output sample at a time.
// Compiled for the host (CPU engine, device-free tests) and for the device (decimation kernel).
//
// The CPU accumulates binary32 products in a binary64 running sum. That sum is exact for scale
// <= 128 (docs/numerics.md §4): every product is a multiple of 2^-45 below 2^6. Summing the
// products as int64 in units of 2^-52 is therefore exact too, needs no fp64, and one conversion to
// binary32 rounds exactly as the CPU's final (float) cast does.
#ifndef SSIMD_KERNELS_DECIMATE_H_
#define SSIMD_KERNELS_DECIMATE_H_

#include <cstddef>
#include <cstdint>

#include "kernels/hd.h"

namespace ssimd {

// Largest decimation factor for which the exact window sum (and so bit-identity) holds.
inline constexpr int kMaxExactDecimation = 128;

// libvmaf's iqa_decimate_dim(): floor(n/f) plus one for any odd side, whatever f is.
SSIMD_HD inline int DecimatedSize(int n, int factor) {
  return factor <= 1 ? n : n / factor + (n & 1);
}

// libvmaf's automatic scale: max(1, round-half-up(min(w, h) / 256)), the division in binary32.
SSIMD_HD inline int AutomaticScale(int width, int height) {
  const int m = width < height ? width : height;
  const float a = static_cast<float>(m) / 256.0f;
  const float t = static_cast<float>(static_cast<int>(a));
  const int r = static_cast<int>((a - t >= 0.5f) ? t + 1.0f : t);
  return r < 1 ? 1 : r;
}

// KBND_SYMMETRIC in its periodic form (period 2n): -1 -> 0, n -> n-1, valid for any offset.
SSIMD_HD inline int ReflectSymmetric(int i, int n) {
  if (i >= 0 && i < n) return i;  // the common case, without the division below
  const int period = 2 * n;
  int m = i % period;
  if (m < 0) m += period;
  return m < n ? m : period - 1 - m;
}

// The box tap weight, one binary32 division as libvmaf forms it: 1.0f / (f*f).
SSIMD_HD inline float DecimationTapWeight(int factor) {
  return 1.0f / static_cast<float>(factor * factor);
}

// A raw sample scaled to libvmaf's 0..255.996 float range: v / 2^(bit_depth-8), exact.
SSIMD_HD inline float SampleToFloat(uint32_t value, int bit_depth) {
  return static_cast<float>(value) / static_cast<float>(1u << (bit_depth - 8));
}

// Reads sample (x, y) of a raw plane of `Sample` (uint8_t or uint16_t) with `stride` elements a row.
template <typename Sample>
SSIMD_HD inline float LoadScaled(const Sample* plane, size_t stride, int x, int y, int bit_depth) {
  return SampleToFloat(plane[static_cast<size_t>(y) * stride + x], bit_depth);
}

// Output sample (x, y) of the decimated plane: the f x f window centred on input (x*f, y*f) with
// offsets -floor(f/2) .. f-1-floor(f/2), mirrored at the edges, each product f32(sample * tap)
// summed exactly. `tap` is DecimationTapWeight(factor). Requires factor <= kMaxExactDecimation.
template <typename Sample>
SSIMD_HD inline float DecimatePixel(const Sample* plane, size_t stride, int width, int height,
                                    int bit_depth, int factor, float tap, int x, int y) {
  const int lo = -(factor / 2);
  const int hi = factor - 1 - factor / 2;
  int64_t sum = 0;  // units of 2^-52
  for (int v = lo; v <= hi; ++v) {
    const int row = ReflectSymmetric(y * factor + v, height);
    for (int u = lo; u <= hi; ++u) {
      const int col = ReflectSymmetric(x * factor + u, width);
      const float product = LoadScaled(plane, stride, col, row, bit_depth) * tap;
      // product is a multiple of 2^-45 below 2^6, so scaling by 2^52 gives an exact integer.
      sum += static_cast<int64_t>(product * 0x1p52f);
    }
  }
  // One round-to-nearest conversion; scaling by 2^-52 afterwards is exact.
  return static_cast<float>(sum) * 0x1p-52f;
}

}  // namespace ssimd

#endif  // SSIMD_KERNELS_DECIMATE_H_
