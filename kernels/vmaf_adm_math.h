// The arithmetic of libvmaf's integer `adm` feature extractor (libvmaf/src/feature/integer_adm.c
// and integer_adm.h at Netflix/vmaf f85a8536), written once for every bit depth and scale.
//
// Per scale, libvmaf runs a fixed-point db2 wavelet step on both pictures, splits the distorted
// detail bands into a part restored from the reference and an additive part (decoupling), weights
// both by a contrast sensitivity factor (CSF), and sums cubes of the restored part above a
// masking threshold made from the additive part's 3x3 neighbourhood. The denominator sums cubes
// of the reference's bands. AIM does the same with the roles of the two parts swapped.
//
// Scale 0 works on 16-bit intermediates and scales 1 to 3 on 32-bit ones, with different shifts;
// both store band values here as int32_t (scale-0 values are cast through int16_t where libvmaf
// stores them in 16 bits, so they wrap where libvmaf's do). Where libvmaf's C relies on two's
// complement wrapping of 32-bit signed arithmetic (left shifts and differences of large
// thresholds), these functions wrap explicitly through unsigned arithmetic.
//
// Everything marked SSIMD_HD is integer or IEEE binary64 arithmetic that runs the same on a
// device; the plain inline functions at the end (CSF factors, shifts taken from log2, the final
// binary32 powf steps, a frame's plan of them) run on the host only. A frame's work ends in
// integer totals (AdmSums) that the CPU and the device compute alike and one host finish turns
// into values.
#ifndef SSIMD_KERNELS_VMAF_ADM_MATH_H_
#define SSIMD_KERNELS_VMAF_ADM_MATH_H_

#include <cmath>
#include <cstdint>

#include "kernels/hd.h"

namespace ssimd {

// ---------------------------------------------------------------------------------------------
// Geometry.

// The smallest side libvmaf's integer adm handles without reading outside its buffers: its
// wavelet step mirrors indices correctly only where each side keeps at least 3 output samples at
// every scale, i.e. ceil(side / 8) >= 5 at the last scale's input. Below that, the vmaf tool reads
// memory before its buffers (sides 17 to 32) or crashes (16 and less).
inline constexpr int kAdmMinSide = 33;

// Source row (or column) of wavelet tap k = 2i-1 .. 2i+2 for output i, over a side of n samples:
// -1 reflects to 1, and past the end libvmaf reflects with the edge sample repeated.
SSIMD_HD inline int AdmDwtSourceIndex(int k, int n) {
  if (k < 0) return -k;
  if (k >= n) return 2 * n - k - 1;
  return k;
}

// The rectangle a step works on: rows [top, bottom), columns [left, right).
struct AdmRegion {
  int top = 0;
  int bottom = 0;
  int left = 0;
  int right = 0;
};

// Where libvmaf sums (numerator and denominator): a border of about 10% left out on each side.
SSIMD_HD inline AdmRegion AdmSumRegion(int width, int height) {
  AdmRegion r;
  r.left = static_cast<int>(width * 0.1 - 0.5);
  r.top = static_cast<int>(height * 0.1 - 0.5);
  r.right = width - r.left;
  r.bottom = height - r.top;
  return r;
}

// Where libvmaf decouples and weights by the CSF: the sum region widened by the masking filter's
// reach, clipped to the band.
SSIMD_HD inline AdmRegion AdmFilterRegion(int width, int height) {
  const int left = static_cast<int>(width * 0.1 - 0.5 - 1);
  const int top = static_cast<int>(height * 0.1 - 0.5 - 1);
  AdmRegion r;
  r.left = left < 0 ? 0 : left;
  r.top = top < 0 ? 0 : top;
  r.right = width - left + 2 > width ? width : width - left + 2;
  r.bottom = height - top + 2 > height ? height : height - top + 2;
  return r;
}

// ---------------------------------------------------------------------------------------------
// The db2 wavelet step. Taps, low pass: 15826, 27411, 7345, -4240 (sum 46342, about 2^15 * sqrt 2);
// high pass: -4240, -7345, 27411, -15826 (sum 0).

SSIMD_HD inline int64_t AdmLowTaps(int64_t s0, int64_t s1, int64_t s2, int64_t s3) {
  return 15826 * s0 + 27411 * s1 + 7345 * s2 - 4240 * s3;
}
SSIMD_HD inline int64_t AdmHighTaps(int64_t s0, int64_t s1, int64_t s2, int64_t s3) {
  return -4240 * s0 - 7345 * s1 + 27411 * s2 - 15826 * s3;
}

// Scale 0, vertical: samples centred on zero (the low pass subtracts 46342 * 2^(b-1)) and scaled
// by 2^-b. libvmaf sums in 32 bits, which wraps for 16-bit samples before the subtraction; the
// wrapped and the exact sums agree once the offset is subtracted, so the exact one is used.
SSIMD_HD inline int32_t AdmDwt0VerticalLow(uint32_t s0, uint32_t s1, uint32_t s2, uint32_t s3,
                                           int bit_depth) {
  const int64_t half = int64_t{1} << (bit_depth - 1);
  const int64_t sum = AdmLowTaps(s0, s1, s2, s3) - 46342 * half;
  return static_cast<int16_t>((sum + half) >> bit_depth);
}
SSIMD_HD inline int32_t AdmDwt0VerticalHigh(uint32_t s0, uint32_t s1, uint32_t s2, uint32_t s3,
                                            int bit_depth) {
  const int64_t half = int64_t{1} << (bit_depth - 1);
  return static_cast<int16_t>((AdmHighTaps(s0, s1, s2, s3) + half) >> bit_depth);
}
// Scale 0, horizontal, over the vertical pass's 16-bit values: scaled by 2^-16, rounded.
SSIMD_HD inline int32_t AdmDwt0Horizontal(int64_t taps) {
  return static_cast<int16_t>((taps + 32768) >> 16);
}

// Scales 1 to 3 (scale = 1, 2, 3), on 32-bit bands: libvmaf's rounding and shifts per pass.
SSIMD_HD inline int32_t AdmDwt123Vertical(int64_t taps, int scale) {
  if (scale == 1) return static_cast<int32_t>(taps);
  return static_cast<int32_t>((taps + 32768) >> 16);
}
SSIMD_HD inline int32_t AdmDwt123Horizontal(int64_t taps, int scale) {
  if (scale == 2) return static_cast<int32_t>((taps + 32768) >> 16);
  return static_cast<int32_t>((taps + 16384) >> 15);
}

// Column x of one output row of scale 0's vertical pass: `rows` are the four source rows
// (AdmDwtSourceIndex), `low`/`high` receive the 16-bit values.
template <typename Sample>
SSIMD_HD inline void AdmDwt0VerticalAt(const Sample* const rows[4], int x, int bit_depth,
                                       int32_t* low, int32_t* high) {
  const uint32_t s0 = rows[0][x], s1 = rows[1][x], s2 = rows[2][x], s3 = rows[3][x];
  *low = AdmDwt0VerticalLow(s0, s1, s2, s3, bit_depth);
  *high = AdmDwt0VerticalHigh(s0, s1, s2, s3, bit_depth);
}

SSIMD_HD inline void AdmDwt123VerticalAt(const int32_t* const rows[4], int x, int scale,
                                         int32_t* low, int32_t* high) {
  const int64_t s0 = rows[0][x], s1 = rows[1][x], s2 = rows[2][x], s3 = rows[3][x];
  *low = AdmDwt123Vertical(AdmLowTaps(s0, s1, s2, s3), scale);
  *high = AdmDwt123Vertical(AdmHighTaps(s0, s1, s2, s3), scale);
}

// One output row of the vertical pass over `width` columns.
template <typename Sample>
SSIMD_HD inline void AdmDwt0VerticalRow(const Sample* const rows[4], int width, int bit_depth,
                                        int32_t* low, int32_t* high) {
  for (int x = 0; x < width; ++x) AdmDwt0VerticalAt(rows, x, bit_depth, &low[x], &high[x]);
}

SSIMD_HD inline void AdmDwt123VerticalRow(const int32_t* const rows[4], int width, int scale,
                                          int32_t* low, int32_t* high) {
  for (int x = 0; x < width; ++x) AdmDwt123VerticalAt(rows, x, scale, &low[x], &high[x]);
}

// One output sample's horizontal pass from the vertical pass's four low (l*) and four high (h*)
// values at its source columns: `a` (low of low), `v` (high of low), `h` (low of high) and `d`
// (high of high).
SSIMD_HD inline void AdmDwtHorizontal(int64_t l0, int64_t l1, int64_t l2, int64_t l3, int64_t h0,
                                      int64_t h1, int64_t h2, int64_t h3, int scale, int32_t* a,
                                      int32_t* v, int32_t* h, int32_t* d) {
  if (scale == 0) {
    *a = AdmDwt0Horizontal(AdmLowTaps(l0, l1, l2, l3));
    *v = AdmDwt0Horizontal(AdmHighTaps(l0, l1, l2, l3));
    *h = AdmDwt0Horizontal(AdmLowTaps(h0, h1, h2, h3));
    *d = AdmDwt0Horizontal(AdmHighTaps(h0, h1, h2, h3));
  } else {
    *a = AdmDwt123Horizontal(AdmLowTaps(l0, l1, l2, l3), scale);
    *v = AdmDwt123Horizontal(AdmHighTaps(l0, l1, l2, l3), scale);
    *h = AdmDwt123Horizontal(AdmLowTaps(h0, h1, h2, h3), scale);
    *d = AdmDwt123Horizontal(AdmHighTaps(h0, h1, h2, h3), scale);
  }
}

// Output column x's horizontal pass over one vertical pass row of `width` values.
SSIMD_HD inline void AdmDwtHorizontalAt(const int32_t* low, const int32_t* high, int width, int x,
                                        int scale, int32_t* a, int32_t* v, int32_t* h,
                                        int32_t* d) {
  const int j0 = AdmDwtSourceIndex(2 * x - 1, width);
  const int j1 = AdmDwtSourceIndex(2 * x, width);
  const int j2 = AdmDwtSourceIndex(2 * x + 1, width);
  const int j3 = AdmDwtSourceIndex(2 * x + 2, width);
  AdmDwtHorizontal(low[j0], low[j1], low[j2], low[j3], high[j0], high[j1], high[j2], high[j3],
                   scale, a, v, h, d);
}

// ---------------------------------------------------------------------------------------------
// Decoupling: per detail band, k = clamp(t / o, 0, 1) in Q15 by a reciprocal table, the restored
// value r = k * o, and where the two (h, v) vectors point within 1 degree of each other r becomes
// the distorted value itself, allowing an enhancement gain of at most adm_enhn_gain_limit.

// cos(1 degree)^2 as binary32, as libvmaf rounds the binary64 product.
inline constexpr float kAdmCos1DegSquared = 0x1.ffd814p-1f;

// libvmaf's reciprocal table entry for d in [-32768, 32768], d != 0: sign(d) * floor(2^30 / |d|).
SSIMD_HD inline int64_t AdmReciprocal(int32_t d) {
  const int64_t q = int64_t{1073741824} / (d < 0 ? -int64_t{d} : int64_t{d});
  return d < 0 ? -q : q;
}

// k for scale 0 (16-bit o and t), clamped to [0, 32768].
SSIMD_HD inline int64_t AdmRatio0(int32_t o, int32_t t) {
  int64_t k = 32768;
  if (o != 0) k = static_cast<int32_t>((AdmReciprocal(o) * t + 16384) >> 15);
  return k < 0 ? 0 : (k > 32768 ? 32768 : k);
}

// k for scales 1 to 3: a 32-bit |o| is first rounded to its best 15 significant bits, and the
// shift so lost is taken off the product.
SSIMD_HD inline int64_t AdmRatio123(int32_t o, int32_t t) {
  int64_t k = 32768;
  if (o != 0) {
    const uint32_t magnitude = o < 0 ? 0u - static_cast<uint32_t>(o) : static_cast<uint32_t>(o);
    uint32_t divisor = magnitude;
    int shift = 0;
    if (magnitude >= 32768) {
      int leading_zeros = 0;
      while (!(magnitude & (0x80000000u >> leading_zeros))) ++leading_zeros;
      shift = 17 - leading_zeros;
      divisor = static_cast<uint16_t>((magnitude + (1u << (shift - 1))) >> shift);
    }
    const int64_t sign = o < 0 ? -1 : 1;
    k = ((AdmReciprocal(static_cast<int32_t>(divisor)) * t) * sign + (int64_t{1} << (14 + shift))) >>
        (15 + shift);
  }
  return k < 0 ? 0 : (k > 32768 ? 32768 : k);
}

// Whether (oh, ov) and (th, tv) point within 1 degree of each other, with libvmaf's binary32
// conversions and binary64 products.
SSIMD_HD inline bool AdmWithinOneDegree(int64_t oh, int64_t ov, int64_t th, int64_t tv) {
  const int64_t dot = oh * th + ov * tv;
  const int64_t o_sq = oh * oh + ov * ov;
  const int64_t t_sq = th * th + tv * tv;
  const double dot_d = static_cast<double>(static_cast<float>(dot)) / 4096.0;
  if (!(dot_d >= 0.0)) return false;
  const double o_d = static_cast<double>(static_cast<float>(o_sq)) / 4096.0;
  const double t_d = static_cast<double>(static_cast<float>(t_sq)) / 4096.0;
  return dot_d * dot_d >= static_cast<double>(kAdmCos1DegSquared) * o_d * t_d;
}

// The restored value of one band sample from k, o and t; `aligned` is AdmWithinOneDegree.
// libvmaf tests the sign of a binary32 product of k and o, which is the sign of k * o here.
SSIMD_HD inline int32_t AdmRestored(int64_t k, int32_t o, int32_t t, bool aligned,
                                    double gain_limit) {
  const int32_t restored = static_cast<int32_t>((k * o + 16384) >> 15);
  if (aligned && k > 0 && o != 0) {
    const double boosted = restored * gain_limit;
    if (o > 0) return static_cast<int32_t>(boosted < t ? boosted : static_cast<double>(t));
    return static_cast<int32_t>(boosted > t ? boosted : static_cast<double>(t));
  }
  return restored;
}

// Decouples one sample at `scale`: reference bands o*, distorted bands t*, outputs the restored
// (r) and additive (a) parts of h, v and d. At scale 0 both are stored in 16 bits.
SSIMD_HD inline void AdmDecouple(int32_t oh, int32_t ov, int32_t od, int32_t th, int32_t tv,
                                 int32_t td, int scale, double gain_limit, int32_t r[3],
                                 int32_t a[3]) {
  const bool aligned = AdmWithinOneDegree(oh, ov, th, tv);
  const int32_t o[3] = {oh, ov, od};
  const int32_t t[3] = {th, tv, td};
  for (int b = 0; b < 3; ++b) {
    const int64_t k = scale == 0 ? AdmRatio0(o[b], t[b]) : AdmRatio123(o[b], t[b]);
    int32_t restored = AdmRestored(k, o[b], t[b], aligned, gain_limit);
    int32_t additive = static_cast<int32_t>(static_cast<uint32_t>(t[b]) -
                                            static_cast<uint32_t>(restored));
    if (scale == 0) {
      restored = static_cast<int16_t>(restored);
      additive = static_cast<int16_t>(additive);
    }
    r[b] = restored;
    a[b] = additive;
  }
}

// Decouples sample x of one row (AdmDecouple), reading and writing row arrays.
SSIMD_HD inline void AdmDecoupleAt(const int32_t* oh, const int32_t* ov, const int32_t* od,
                                   const int32_t* th, const int32_t* tv, const int32_t* td, int x,
                                   int scale, double gain_limit, int32_t* rh, int32_t* rv,
                                   int32_t* rd, int32_t* ah, int32_t* av, int32_t* ad) {
  int32_t r[3], a[3];
  AdmDecouple(oh[x], ov[x], od[x], th[x], tv[x], td[x], scale, gain_limit, r, a);
  rh[x] = r[0];
  rv[x] = r[1];
  rd[x] = r[2];
  ah[x] = a[0];
  av[x] = a[1];
  ad[x] = a[2];
}

// ---------------------------------------------------------------------------------------------
// CSF weighting and the masking values. At scale 0 the CSF factor is a Q21 (h, v) or Q23 (d)
// 16-bit integer; at scales 1 to 3 a Q32 32-bit one.

SSIMD_HD inline int64_t AdmAbs(int32_t v) { return v < 0 ? -int64_t{v} : int64_t{v}; }

// band: 0 h, 1 v, 2 d. libvmaf rounds d with 65535, not 65536, before its 17-bit shift.
SSIMD_HD inline int32_t AdmCsf0(int32_t value, uint32_t rfactor, int band) {
  const int32_t product = static_cast<int32_t>(rfactor) * value;
  if (band == 2) return static_cast<int16_t>((product + 65535) >> 17);
  return static_cast<int16_t>((product + 16384) >> 15);
}
// The neighbours' masking value, |csf| / 30 (4369 = 2^17 / 30).
SSIMD_HD inline int32_t AdmMask0(int32_t csf) {
  return static_cast<int16_t>((4369 * AdmAbs(csf) + 2048) >> 12);
}
// The centre's masking value, |csf| / 15 (8738 = 2^17 / 15).
SSIMD_HD inline int32_t AdmCentre0(int32_t csf) {
  return static_cast<int16_t>((8738 * AdmAbs(csf) + 2048) >> 12);
}

SSIMD_HD inline int32_t AdmCsf123(int32_t value, uint32_t rfactor) {
  return static_cast<int32_t>((static_cast<int64_t>(rfactor) * value + (int64_t{1} << 27)) >> 28);
}
// libvmaf stores its rounding term 2^31 in an int32_t, where it becomes -2^31: the masking values
// of scales 1 to 3 subtract it instead of adding it.
SSIMD_HD inline int32_t AdmMask123(int32_t csf) {
  return static_cast<int32_t>((143165577 * AdmAbs(csf) - (int64_t{1} << 31)) >> 32);
}
SSIMD_HD inline int32_t AdmCentre123(int32_t csf) {
  return static_cast<int32_t>((286331153 * AdmAbs(csf) - (int64_t{1} << 31)) >> 32);
}

// One sample's CSF-weighted value and its masking value, band `band` (0 h, 1 v, 2 d) of `scale`.
SSIMD_HD inline void AdmCsfAt(int32_t value, uint32_t rfactor, int band, int scale, int32_t* csf,
                              int32_t* mask) {
  if (scale == 0) {
    *csf = AdmCsf0(value, rfactor, band);
    *mask = AdmMask0(*csf);
  } else {
    *csf = AdmCsf123(value, rfactor);
    *mask = AdmMask123(*csf);
  }
}

// ---------------------------------------------------------------------------------------------
// The contrast masking sum (numerator).

// One band's shifts in the cube: |x| less the threshold shifted by `threshold_shift`, floored at
// 0, squared and shifted by `square_shift` (rounding `square_round`), times |x| again, shifted by
// `cube_shift` (rounding `cube_round`).
struct AdmCubeShifts {
  int threshold_shift = 0;
  int square_shift = 0;
  int64_t square_round = 0;
  int cube_shift = 0;
  int64_t cube_round = 0;
};

SSIMD_HD inline int64_t AdmMaskedCube(int32_t x, int32_t threshold, const AdmCubeShifts& s) {
  const uint32_t magnitude = x < 0 ? 0u - static_cast<uint32_t>(x) : static_cast<uint32_t>(x);
  const uint32_t shifted = static_cast<uint32_t>(threshold) << s.threshold_shift;
  int32_t m = static_cast<int32_t>(magnitude - shifted);
  if (m < 0) m = 0;
  const int32_t square =
      static_cast<int32_t>((static_cast<int64_t>(m) * m + s.square_round) >> s.square_shift);
  return (static_cast<int64_t>(square) * m + s.cube_round) >> s.cube_shift;
}

// Planes of one scale (row-major, `stride` elements a row).
struct AdmPlanes3 {
  const int32_t* band[3] = {nullptr, nullptr, nullptr};  // h, v, d
};

// The masking threshold at (x, y) of a width x height band: over h, v and d, the masking values
// of the 3x3 neighbourhood with the centre's own value in the middle. Rows and columns past the
// top and left reflect (-1 -> 1); past the bottom and right the edge repeats.
SSIMD_HD inline int32_t AdmThreshold(const AdmPlanes3& csf, const AdmPlanes3& mask, int stride,
                                     int width, int height, int x, int y, int scale) {
  const int up = y == 0 ? 1 : y - 1;
  const int down = y == height - 1 ? height - 1 : y + 1;
  const int left = x == 0 ? 1 : x - 1;
  const int right = x == width - 1 ? width - 1 : x + 1;
  uint32_t sum = 0;
  for (int b = 0; b < 3; ++b) {
    const int32_t* m = mask.band[b];
    const int32_t* rows[3] = {m + static_cast<int64_t>(up) * stride,
                              m + static_cast<int64_t>(y) * stride,
                              m + static_cast<int64_t>(down) * stride};
    const int32_t c = csf.band[b][static_cast<int64_t>(y) * stride + x];
    const int32_t centre = scale == 0 ? AdmCentre0(c) : AdmCentre123(c);
    sum += static_cast<uint32_t>(rows[0][left]) + static_cast<uint32_t>(rows[0][x]) +
           static_cast<uint32_t>(rows[0][right]) + static_cast<uint32_t>(rows[1][left]) +
           static_cast<uint32_t>(centre) + static_cast<uint32_t>(rows[1][right]) +
           static_cast<uint32_t>(rows[2][left]) + static_cast<uint32_t>(rows[2][x]) +
           static_cast<uint32_t>(rows[2][right]);
  }
  return static_cast<int32_t>(sum);
}

// What the masking sum needs of a scale besides the planes.
struct AdmMaskingParams {
  int scale = 0;
  uint32_t rfactor[3] = {0, 0, 0};  // Q21/Q21/Q23 16-bit at scale 0, Q32 at scales 1 to 3
  AdmCubeShifts shifts[3];          // h, v, d
};

// Row y's sums of masked cubes over columns [x0, x1), per band (h, v, d): `values` are the
// decoupled part summed (restored for the numerator, additive for AIM), `csf`/`mask` the CSF of
// the other part and its masking values.
SSIMD_HD inline void AdmMaskedRowSums(const AdmPlanes3& values, const AdmPlanes3& csf,
                                      const AdmPlanes3& mask, int stride, int width, int height,
                                      int y, int x0, int x1, const AdmMaskingParams& p,
                                      int64_t sums[3]) {
  sums[0] = sums[1] = sums[2] = 0;
  for (int x = x0; x < x1; ++x) {
    const int32_t threshold = AdmThreshold(csf, mask, stride, width, height, x, y, p.scale);
    for (int b = 0; b < 3; ++b) {
      const int32_t v = values.band[b][static_cast<int64_t>(y) * stride + x];
      const int32_t weighted = p.scale == 0 ? static_cast<int32_t>(p.rfactor[b]) * v
                                            : AdmCsf123(v, p.rfactor[b]);
      sums[b] += AdmMaskedCube(weighted, threshold, p.shifts[b]);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The denominator: cubes of the reference's bands.

SSIMD_HD inline uint64_t AdmReferenceCube0(int32_t v) {
  const uint64_t m = static_cast<uint16_t>(AdmAbs(static_cast<int16_t>(v)));
  return m * m * m;
}
// scale 1..3: libvmaf rounds the square with a whole unit (2^shift, not 2^(shift-1)).
SSIMD_HD inline uint64_t AdmReferenceCube123(int32_t v, int scale, int cube_shift,
                                             uint64_t cube_round) {
  const int square_shift = scale == 2 ? 30 : 31;
  const uint64_t m = static_cast<uint32_t>(AdmAbs(v));
  const uint64_t square = (m * m + (uint64_t{1} << square_shift)) >> square_shift;
  return (square * m + cube_round) >> cube_shift;
}

// The denominator's shifts for a band of one scale: per-sample cube (scales 1 to 3) and per-row
// sum.
struct AdmDenominatorShifts {
  int cube_shift = 0;
  uint64_t cube_round = 0;
  int row_shift = 0;
  uint64_t row_round = 0;
};

SSIMD_HD inline uint64_t AdmReferenceCube(int32_t v, int scale, const AdmDenominatorShifts& s) {
  return scale == 0 ? AdmReferenceCube0(v)
                    : AdmReferenceCube123(v, scale, s.cube_shift, s.cube_round);
}

// ---------------------------------------------------------------------------------------------
// Rows to frame. libvmaf rounds and shifts each row's sum before adding it to the band's total, so
// the total depends on how samples fall into rows but not on the order of the rows, nor on the
// order within a row (integer sums, wrapping as two's complement).

// A row's masking sum as added to the band's total: rounded and shifted (arithmetically).
SSIMD_HD inline int64_t AdmMaskingRowTerm(int64_t row_sum, uint32_t row_shift, int64_t row_round) {
  return static_cast<int64_t>(static_cast<uint64_t>(row_sum) + static_cast<uint64_t>(row_round)) >>
         row_shift;
}

// A row's denominator sum as added to the band's total.
SSIMD_HD inline uint64_t AdmDenominatorRowTerm(uint64_t row_sum, const AdmDenominatorShifts& s) {
  return (row_sum + s.row_round) >> s.row_shift;
}

// Adds a row's term to a total as libvmaf's 64-bit signed total does, wrapping.
SSIMD_HD inline int64_t AdmAddWrapping(int64_t total, int64_t term) {
  return static_cast<int64_t>(static_cast<uint64_t>(total) + static_cast<uint64_t>(term));
}

// One scale's totals over the rows of the summed region, per band (h, v, d): the numerator's
// masking sums, AIM's, and the denominator's. Plain integers, so a device can fill them in any
// order and the host finish (engine/cpu/vmaf/adm.h) gives the same values.
struct AdmScaleSums {
  int64_t numerator[3];
  int64_t aim[3];
  uint64_t denominator[3];
};

// A frame's totals, scales 0 to 3. Zero where a scale or AIM is skipped.
struct AdmSums {
  AdmScaleSums scale[4];
};

// ---------------------------------------------------------------------------------------------
// Host-only steps: shifts from the band sizes, the CSF factors and the binary32 finish.

// libvmaf's (uint32_t)pow(2, s - 1) rounding term, 0 for s = 0 (where its argument wraps).
inline uint64_t AdmRoundFor(uint32_t shift) {
  return shift == 0 ? 0 : uint64_t{1} << (shift - 1);
}

// ceil(log2(n) + offset) converted to unsigned as libvmaf does (n here is always large enough
// that the value is not negative).
inline uint32_t AdmCeilLog2(int n, double offset) {
  return static_cast<uint32_t>(std::ceil(std::log2(n) + offset));
}

// x86-64's conversions of an out-of-range binary64 where libvmaf converts one to uint16_t
// (through a 32-bit signed integer) or uint32_t (through a 64-bit one): the low bits wrap, and
// values beyond the intermediate type give 0.
inline uint32_t AdmToUint16(double v) {
  if (!(v > -2147483649.0 && v < 2147483648.0)) return 0;
  return static_cast<uint16_t>(static_cast<uint32_t>(static_cast<int32_t>(v)));
}
inline uint32_t AdmToUint32(double v) {
  if (!(v > -9223372036854775808.0 && v < 9223372036854775808.0)) return 0;
  return static_cast<uint32_t>(static_cast<uint64_t>(static_cast<int64_t>(v)));
}

// Watson et al. 1997's quantisation step for the luma 7-9 wavelet at level `lambda` and
// orientation `theta` (1 h/v, 2 diagonal), at a display resolution of nvd * rdh * pi / 180 pixels a
// degree, with libvmaf's binary32 roundings. The parameters are the paper's (Y: a 0.495,
// k 0.466, f0 0.401, g 1.501/1/0.534/1) and its basis amplitudes (Table V).
inline float AdmWatsonQuantStep(int lambda, int theta, double norm_view_dist,
                                int ref_display_height) {
  const float a = static_cast<float>(0.495);
  const float k = static_cast<float>(0.466);
  const float f0 = static_cast<float>(0.401);
  const float g[4] = {static_cast<float>(1.501), 1.0f, static_cast<float>(0.534), 1.0f};
  const double amplitudes[4][4] = {{0.62171, 0.67234, 0.72709, 0.67234},
                                   {0.34537, 0.41317, 0.49428, 0.41317},
                                   {0.18004, 0.22727, 0.28688, 0.22727},
                                   {0.091401, 0.11792, 0.15214, 0.11792}};
  const float amplitude = static_cast<float>(amplitudes[lambda][theta]);
  const float r =
      static_cast<float>(norm_view_dist * ref_display_height * 3.14159265358979323846 / 180.0);
  const float temp = static_cast<float>(std::log10(
      std::pow(2.0, lambda + 1) * static_cast<double>(f0) * static_cast<double>(g[theta]) /
      static_cast<double>(r)));
  const float exponent = k * temp * temp;
  return static_cast<float>(2.0 * static_cast<double>(a) *
                            std::pow(10.0, static_cast<double>(exponent)) /
                            static_cast<double>(amplitude));
}

// Barten's CSF as HDR-VDP-2.2.1 simplifies it, at luminance 100 cd/m^2 (libvmaf's fixed level),
// for DWT level `lambda`, times `scale`; libvmaf's barten_csf_tools.h with its binary32 and
// binary64 steps. Parameters: HDR-VDP's six luminance anchors and per-anchor CSF parameters, the
// rod-cone sensitivity and MTF constants.
inline float AdmBartenCsf(int lambda, double norm_view_dist, int ref_display_height,
                          double scale) {
  const double luminance = 100.0;
  const float anchors[6] = {static_cast<float>(0.002), static_cast<float>(0.02),
                            static_cast<float>(0.2), 2.0f, 20.0f, 150.0f};
  const double params_d[6][5] = {{0.0160737, 0.991265, 3.74038, 0.50722, 4.46044},
                                 {0.383873, 0.800889, 3.54104, 0.682505, 4.94958},
                                 {0.929301, 0.476505, 4.37453, 0.750315, 5.28678},
                                 {1.29776, 0.405782, 4.40602, 0.935314, 5.61425},
                                 {1.49222, 0.334278, 3.79542, 1.07327, 6.4635},
                                 {1.46213, 0.394533, 2.7755, 1.16577, 7.45665}};
  const float r =
      static_cast<float>(norm_view_dist * ref_display_height * 3.14159265358979323846 / 180.0);
  const float frequency = static_cast<float>(static_cast<double>(r) / std::pow(2.0, lambda + 1));
  double clamped = luminance;
  if (clamped > static_cast<double>(anchors[5])) {
    clamped = anchors[5];
  } else if (clamped < static_cast<double>(anchors[0])) {
    clamped = anchors[0];
  }
  int lo = 0, hi = 0;
  for (int i = 0; i < 5; ++i) {
    if (clamped >= static_cast<double>(anchors[i]) &&
        clamped <= static_cast<double>(anchors[i + 1])) {
      lo = i;
      hi = i + 1;
      break;
    }
  }
  const float lo_pos = static_cast<float>(std::log10(static_cast<double>(anchors[lo])));
  const float hi_pos = static_cast<float>(std::log10(static_cast<double>(anchors[hi])));
  const float pos = static_cast<float>(std::log10(clamped));
  float p[4];
  for (int i = 0; i < 4; ++i) {
    const float lo_val = static_cast<float>(params_d[lo][i + 1]);
    const float hi_val = static_cast<float>(params_d[hi][i + 1]);
    p[i] = lo_val + ((hi_val - lo_val) / (hi_pos - lo_pos)) * (pos - lo_pos);
  }
  const float a = static_cast<float>(
      1.0f + std::pow(static_cast<double>(p[0] * frequency), static_cast<double>(p[1])));
  const float b = static_cast<float>(
      1.0f / std::pow(1 - std::exp(-std::pow(static_cast<double>(frequency / 7), 2.0)),
                      static_cast<double>(p[2])));
  const float csf = static_cast<float>(p[3] / std::pow(static_cast<double>(a * b), 0.5));

  const double mtf_a[4] = {0.424838596301290, 0.572435103936480, 0.000167576239164937,
                           0.00255872352306433};
  const double mtf_b[4] = {0.028, 0.37, 37, 360};
  float mtf = 0.0f;
  for (int i = 0; i < 4; ++i) {
    const float bi = static_cast<float>(mtf_b[i]);
    mtf = static_cast<float>(static_cast<double>(mtf) +
                             static_cast<double>(static_cast<float>(mtf_a[i])) *
                                 std::exp(static_cast<double>(-bi * frequency)));
  }
  const float level = static_cast<float>(luminance);
  const float sa0 = static_cast<float>(30.162);
  const float drop = static_cast<float>(4.0627);
  const float slope = static_cast<float>(1.6596);
  const float low_slope = static_cast<float>(0.2712);
  const float rod_cone = static_cast<float>(
      static_cast<double>(sa0) *
      std::pow(std::pow(static_cast<double>(drop / level), static_cast<double>(slope)) + 1,
               static_cast<double>(-low_slope)));
  return static_cast<float>(static_cast<double>(csf * mtf * rod_cone) * scale);
}

// Legacy and MAE-fitted blends of Barten's and Watson's CSFs (adm_csf_mode 2 and 3), libvmaf's
// tables for the display set-ups it lists that its extractor accepts (nvd * rdh >= 3240): per
// set-up, h/v then d, scales 0 to 3. False where the set-up has no table (libvmaf then uses
// -EINVAL, -22, as the factor).
inline bool AdmBlendedCsf(bool mae, int scale, int diagonal, double norm_view_dist,
                          int ref_display_height, float* factor) {
  static const double kLegacy[6][2][4] = {
      {{0.01183, 0.025026, 0.04295, 0.058621}, {0.004302, 0.011778, 0.023918, 0.035901}},
      {{0.004212, 0.014809, 0.029642, 0.047464}, {0.000984, 0.005852, 0.0146, 0.027574}},
      {{0.00226, 0.01183, 0.025026, 0.04295}, {0.000479, 0.004302, 0.011778, 0.023918}},
      {{0.000092, 0.004212, 0.014809, 0.029642}, {0.000050, 0.000984, 0.005852, 0.0146}},
      {{0.010144, 0.022561, 0.040309, 0.05672}, {0.003463, 0.010282, 0.021839, 0.034641}},
      {{0.01183, 0.025026, 0.04295, 0.058621}, {0.004302, 0.011778, 0.023918, 0.035901}}};
  static const double kMae[6][2][4] = {
      {{0.011249, 0.022606, 0.035930, 0.045673}, {0.004097, 0.010921, 0.021430, 0.031313}},
      {{0.004052, 0.013939, 0.026298, 0.038833}, {0.000927, 0.005544, 0.013415, 0.024515}},
      {{0.002166, 0.011249, 0.022606, 0.035930}, {0.000447, 0.004097, 0.010921, 0.021430}},
      {{0.000077, 0.004052, 0.013939, 0.026298}, {0.000045, 0.000927, 0.005544, 0.013415}},
      {{0.009689, 0.020577, 0.034162, 0.044523}, {0.003302, 0.009579, 0.019661, 0.030318}},
      {{0.011249, 0.022606, 0.035930, 0.045673}, {0.004097, 0.010921, 0.021430, 0.031313}}};
  int setup = -1;
  if (ref_display_height == 1080 && norm_view_dist == 3.0) setup = 0;
  if (ref_display_height == 1080 && norm_view_dist == 5.0) setup = 1;
  if (ref_display_height == 2160 && norm_view_dist == 3.0) setup = 2;
  if (ref_display_height == 2160 && norm_view_dist == 5.0) setup = 3;
  if (ref_display_height == 720 && norm_view_dist == 5.0) setup = 4;
  // 2160 lines at 1.5 heights see as many pixels a degree as 1080 at 3.
  if (ref_display_height == 2160 && norm_view_dist == 1.5) setup = 5;
  if (setup < 0) return false;
  *factor = static_cast<float>(mae ? kMae[setup][diagonal][scale] : kLegacy[setup][diagonal][scale]);
  return true;
}

// The options that set the CSF factors.
struct AdmCsfOptions {
  int csf_mode = 0;  // 0 Watson 97, 1 Barten, 2 blend, 3 blend (MAE fit)
  double norm_view_dist = 3.0;
  int ref_display_height = 1080;
  double csf_scale = 1.0;       // Barten only: h and v
  double csf_diag_scale = 1.0;  // Barten only: d
};

// The CSF factor of `scale`'s h/v bands (diagonal 0) or d band (diagonal 1); false where the
// blend modes have no table for the display set-up.
inline bool AdmCsfFactor(const AdmCsfOptions& o, int scale, int diagonal, float* factor) {
  switch (o.csf_mode) {
    case 1:
      *factor = AdmBartenCsf(scale, o.norm_view_dist, o.ref_display_height,
                             diagonal ? o.csf_diag_scale : o.csf_scale);
      return true;
    case 2:
    case 3:
      return AdmBlendedCsf(o.csf_mode == 3, scale, diagonal, o.norm_view_dist,
                           o.ref_display_height, factor);
    default:
      *factor = 1.0f / AdmWatsonQuantStep(scale, diagonal ? 2 : 1, o.norm_view_dist,
                                          o.ref_display_height);
      return true;
  }
}

// A scale's CSF factors as binary32 (h, v, d) and as the integers the fixed-point steps use:
// scale 0 Q21 (h, v) and Q23 (d) in 16 bits, with libvmaf's fixed values for its default
// viewing set-up under Watson's CSF; scales 1 to 3 Q32. False as AdmCsfFactor.
struct AdmScaleFactors {
  float real[3] = {0, 0, 0};
  uint32_t fixed[3] = {0, 0, 0};
};
inline bool AdmFactorsFor(const AdmCsfOptions& o, int scale, AdmScaleFactors* out) {
  float hv = 0, d = 0;
  if (!AdmCsfFactor(o, scale, 0, &hv) || !AdmCsfFactor(o, scale, 1, &d)) return false;
  out->real[0] = hv;
  out->real[1] = hv;
  out->real[2] = d;
  if (scale == 0) {
    if (std::fabs(o.norm_view_dist * o.ref_display_height - 3.0 * 1080) < 1.0e-8 &&
        o.csf_mode == 0) {
      out->fixed[0] = 36453;
      out->fixed[1] = 36453;
      out->fixed[2] = 49417;
    } else {
      out->fixed[0] = AdmToUint16(hv * std::pow(2.0, 21));
      out->fixed[1] = AdmToUint16(hv * std::pow(2.0, 21));
      out->fixed[2] = AdmToUint16(d * std::pow(2.0, 23));
    }
  } else {
    out->fixed[0] = AdmToUint32(hv * std::pow(2.0, 32));
    out->fixed[1] = AdmToUint32(hv * std::pow(2.0, 32));
    out->fixed[2] = AdmToUint32(d * std::pow(2.0, 32));
  }
  return true;
}

// The masking sum's parameters for a width x height band of `scale`: the cube shifts grow with
// the band's width so that a row's sum fits 64 bits.
inline AdmMaskingParams AdmMaskingParamsFor(int scale, int width, const AdmScaleFactors& f) {
  AdmMaskingParams p;
  p.scale = scale;
  for (int b = 0; b < 3; ++b) {
    p.rfactor[b] = f.fixed[b];
    AdmCubeShifts& s = p.shifts[b];
    if (scale == 0) {
      s.threshold_shift = b == 2 ? 12 : 10;
      s.square_shift = b == 2 ? 30 : 29;
      s.square_round = int64_t{1} << (s.square_shift - 1);
      const uint32_t cube = AdmCeilLog2(width, b == 2 ? -3.0 : -4.0);
      s.cube_shift = static_cast<int>(cube);
      s.cube_round = static_cast<int64_t>(AdmRoundFor(cube));
    } else {
      s.threshold_shift = 0;
      s.square_shift = 30;
      s.square_round = int64_t{1} << 29;
      const uint32_t cube = AdmCeilLog2(width, 0.0);
      s.cube_shift = static_cast<int>(cube);
      s.cube_round = static_cast<int64_t>(AdmRoundFor(cube));
    }
  }
  return p;
}

// The shift (and its rounding) applied to each row's masking sums: ceil(log2(height)).
inline uint32_t AdmMaskingRowShift(int height) { return AdmCeilLog2(height, 0.0); }

// One scale's numerator (or AIM numerator, with noise_weight 0) from the three bands' sums of
// row sums: each sum scaled back to real units, its cube root, plus the cube root of the noise
// floor over the summed region, in binary32 as libvmaf does.
inline float AdmNumeratorScale(int scale, const int64_t sums[3], int width, int height,
                               const AdmMaskingParams& p, double noise_weight) {
  const uint32_t row_shift = AdmMaskingRowShift(height);
  const AdmRegion r = AdmSumRegion(width, height);
  const float third = 1.0f / 3.0f;
  const float noise =
      std::pow(static_cast<float>((r.bottom - r.top) * (r.right - r.left) * noise_weight), third);
  float terms[3];
  for (int b = 0; b < 3; ++b) {
    float value;
    if (scale == 0) {
      const uint32_t exponent =
          (b == 2 ? 57u : 52u) - static_cast<uint32_t>(p.shifts[b].cube_shift) - row_shift;
      value = static_cast<float>(static_cast<double>(sums[b]) /
                                 std::pow(2.0, static_cast<double>(exponent)));
    } else {
      const uint32_t base = scale == 1 ? 45u : (scale == 2 ? 39u : 36u);
      const uint32_t exponent = base - static_cast<uint32_t>(p.shifts[b].cube_shift) - row_shift;
      const float divisor = static_cast<float>(std::pow(2.0, static_cast<double>(exponent)));
      value = static_cast<float>(sums[b]) / divisor;
    }
    terms[b] = std::pow(value, third) + noise;
  }
  return terms[0] + terms[1] + terms[2];
}

// The denominator's shifts for a width x height band of `scale`.
inline AdmDenominatorShifts AdmDenominatorShiftsFor(int scale, int width, int height) {
  const AdmRegion r = AdmSumRegion(width, height);
  AdmDenominatorShifts s;
  if (scale == 0) {
    int32_t shift = static_cast<int32_t>(
        std::ceil(std::log2((r.bottom - r.top) * (r.right - r.left)) - 20));
    if (shift < 0) shift = 0;
    s.row_shift = shift;
    s.row_round = shift > 0 ? uint64_t{1} << (shift - 1) : 0;
  } else {
    const uint32_t cube = AdmCeilLog2(r.right - r.left, 0.0);
    const uint32_t row = AdmCeilLog2(r.bottom - r.top, 0.0);
    s.cube_shift = static_cast<int>(cube);
    s.cube_round = AdmRoundFor(cube);
    s.row_shift = static_cast<int>(row);
    s.row_round = AdmRoundFor(row);
  }
  return s;
}

// One scale's denominator from the three bands' sums of row sums, in libvmaf's binary64 and
// binary32 steps.
inline float AdmDenominatorScale(int scale, const uint64_t sums[3], int width, int height,
                                 const AdmDenominatorShifts& s, const AdmScaleFactors& f,
                                 double noise_weight) {
  const AdmRegion r = AdmSumRegion(width, height);
  double divisor;
  if (scale == 0) {
    divisor = std::pow(2.0, 18 - s.row_shift);
  } else {
    const uint32_t base = scale == 1 ? 32u : (scale == 2 ? 27u : 23u);
    const uint32_t exponent =
        base - static_cast<uint32_t>(s.row_shift) - static_cast<uint32_t>(s.cube_shift);
    divisor = std::pow(2.0, static_cast<double>(exponent));
  }
  const float third = 1.0f / 3.0f;
  const float noise =
      std::pow(static_cast<float>((r.bottom - r.top) * (r.right - r.left) * noise_weight), third);
  float terms[3];
  for (int b = 0; b < 3; ++b) {
    const double csf = static_cast<double>(sums[b]) / divisor *
                       std::pow(static_cast<double>(f.real[b]), 3.0);
    terms[b] = std::pow(static_cast<float>(csf), third) + noise;
  }
  return terms[0] + terms[1] + terms[2];
}

// The options that change the sums; the others only change the host finish.
struct AdmSumOptions {
  double enhn_gain_limit = 100.0;
  AdmCsfOptions csf;
  bool skip_aim = false;     // AIM's sums stay 0
  bool skip_scale0 = false;  // scale 0 makes its low band only; its sums stay 0
};

// What one scale's steps need besides the planes, from its band size and the options. Plain
// values, so a device kernel can take them as arguments.
struct AdmScalePlan {
  int width = 0;  // the scale's bands
  int height = 0;
  bool summed = true;  // false for scale 0 under skip_scale0
  AdmScaleFactors factors;
  AdmMaskingParams masking;
  uint32_t masking_row_shift = 0;
  int64_t masking_row_round = 0;
  AdmDenominatorShifts denominator;
};

struct AdmPlan {
  AdmScalePlan scale[4];
};

// The plan of a width x height picture; false as AdmFactorsFor (options the extractor refuses).
inline bool AdmPlanFor(int width, int height, const AdmSumOptions& o, AdmPlan* plan) {
  int w = width;
  int h = height;
  for (int scale = 0; scale < 4; ++scale) {
    w = (w + 1) / 2;
    h = (h + 1) / 2;
    AdmScalePlan& p = plan->scale[scale];
    p = AdmScalePlan{};
    p.width = w;
    p.height = h;
    p.summed = !(scale == 0 && o.skip_scale0);
    if (!p.summed) continue;
    if (!AdmFactorsFor(o.csf, scale, &p.factors)) return false;
    p.masking = AdmMaskingParamsFor(scale, w, p.factors);
    p.masking_row_shift = AdmMaskingRowShift(h);
    p.masking_row_round = static_cast<int64_t>(AdmRoundFor(p.masking_row_shift));
    p.denominator = AdmDenominatorShiftsFor(scale, w, h);
  }
  return true;
}

}  // namespace ssimd

#endif  // SSIMD_KERNELS_VMAF_ADM_MATH_H_
