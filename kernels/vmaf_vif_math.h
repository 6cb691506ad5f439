// The arithmetic of libvmaf's integer `vif` feature extractor (libvmaf/src/feature/integer_vif.c
// and integer_vif.h at Netflix/vmaf f85a8536): the per-scale filters, the fixed-point moments of
// one column and one pixel, the per-pixel information terms with the enhancement-gain limit, the
// log2 look-up table and the binary32 score of a scale.
//
// Everything is integer arithmetic on libvmaf's types (32-bit sums that cannot wrap at these
// magnitudes, 64-bit sums where libvmaf widens, the same rounding shifts and the same unsigned
// wrap when a rounded moment exceeds its neighbour), so any order of the exact integer sums gives
// libvmaf's result. The only floating-point steps are the gain of one pixel (binary64, one
// rounding per operation, as libvmaf's ISO C build does) and a scale's final ratio (binary32).
//
// Everything above the "host only" line is SSIMD_HD. The log2 table is generated on the host
// (VifLog2TableEntry) and handed to a device as memory.
#ifndef SSIMD_KERNELS_VMAF_VIF_MATH_H_
#define SSIMD_KERNELS_VMAF_VIF_MATH_H_

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "kernels/hd.h"

namespace ssimd {

inline constexpr int kVifScales = 4;
// The widest filter (scale 0) reaches 8 samples either side; every padded buffer allows that.
inline constexpr int kVifMaxFilterRadius = 8;
// libvmaf's vif_enhn_gain_limit: default and upper bound 100, lower bound 1 (no gain at all).
inline constexpr double kVifDefaultEnhnGainLimit = 100.0;
inline constexpr double kVifMinEnhnGainLimit = 1.0;
// Each scale halves the picture (rounding down), three times; libvmaf needs at least one sample
// per side at scale 3 (fewer rows crash it, fewer columns give 0/0).
inline constexpr int kVifMinSide = 8;

// The log2 table covers the 16-bit mantissas [32767, 65535]; an entry is round(2048*log2(i)).
inline constexpr uint32_t kVifLog2TableFirst = 32767;
inline constexpr uint32_t kVifLog2TableSize = 65536;  // indexed by the mantissa itself

// The additive noise variance of the model, 2.0 in the moments' Q16 units.
inline constexpr int32_t kVifSigmaNsq = 65536 << 1;

// Taps of the 1-D Gaussian of a scale: 17, 9, 5 and 3 taps summing to 65536 (Q16).
SSIMD_HD constexpr int VifFilterWidth(int scale) {
  switch (scale) {
    case 0: return 17;
    case 1: return 9;
    case 2: return 5;
    default: return 3;
  }
}

SSIMD_HD constexpr int VifFilterRadius(int scale) { return VifFilterWidth(scale) / 2; }

// Tap `k` (0 .. width-1) of a scale's filter. The filters are symmetric; the values are
// libvmaf's vif_filter1d_table, written out by distance from the centre.
SSIMD_HD constexpr uint32_t VifFilterTap(int scale, int k) {
  const int radius = VifFilterRadius(scale);
  const int d = k < radius ? radius - k : k - radius;
  switch (scale) {
    case 0:
      switch (d) {
        case 0: return 7784;
        case 1: return 7455;
        case 2: return 6547;
        case 3: return 5274;
        case 4: return 3896;
        case 5: return 2640;
        case 6: return 1640;
        case 7: return 935;
        default: return 489;
      }
    case 1:
      switch (d) {
        case 0: return 14692;
        case 1: return 12590;
        case 2: return 7925;
        case 3: return 3663;
        default: return 1244;
      }
    case 2:
      switch (d) {
        case 0: return 26386;
        case 1: return 16004;
        default: return 3571;
      }
    default:
      return d == 0 ? 43728 : 10904;
  }
}

// Rounding right shift of an exact sum: (sum + 2^(shift-1)) >> shift, or the sum itself for a
// shift of 0.
SSIMD_HD inline uint64_t VifRoundShift(uint64_t sum, int shift) {
  return shift == 0 ? sum : (sum + (uint64_t{1} << (shift - 1))) >> shift;
}

// The vertical pass's shift for means. At scale 0 it is the bit depth, which brings every depth
// to the same Q8-above-8-bit scale; at later scales the samples are already 16-bit means and the
// Q16 filter is simply removed.
SSIMD_HD inline int VifMeanShift(int scale, int bit_depth) { return scale == 0 ? bit_depth : 16; }

// The vertical pass's shift for second moments: 2*(depth-8) at scale 0 (0 at 8 bits), 16 later.
SSIMD_HD inline int VifMomentShift(int scale, int bit_depth) {
  return scale == 0 ? 2 * (bit_depth - 8) : 16;
}

// One column of the vertical pass of a scale's statistics: filtered means of both pictures and
// filtered squares and product, each rounded to libvmaf's stored width.
struct VifColumnMoments {
  uint32_t mu1;  // stored by libvmaf as 16-bit values
  uint32_t mu2;
  uint32_t ref_sq;
  uint32_t dis_sq;
  uint32_t ref_dis;
};

// The exact filtered sums of one column, before rounding. libvmaf keeps the means' sums in 32
// bits (they stay below 2^32: taps sum to 2^16, samples are below 2^16) and the products' in 64.
struct VifColumnSums {
  uint32_t ref = 0;
  uint32_t dis = 0;
  uint64_t ref_sq = 0;
  uint64_t dis_sq = 0;
  uint64_t ref_dis = 0;
};

// Adds one tap's term of a column: tap*r, tap*d, tap*r*r, tap*d*d and tap*r*d.
SSIMD_HD inline void VifAddColumnTap(VifColumnSums& sums, uint32_t tap, uint32_t r, uint32_t d) {
  const uint32_t weighted_r = tap * r;  // < 2^32: taps are below 2^16
  const uint32_t weighted_d = tap * d;
  sums.ref += weighted_r;
  sums.dis += weighted_d;
  sums.ref_sq += static_cast<uint64_t>(weighted_r) * r;
  sums.dis_sq += static_cast<uint64_t>(weighted_d) * d;
  sums.ref_dis += static_cast<uint64_t>(weighted_r) * d;
}

// The column's moments as libvmaf stores them: means rounded to 16 bits, moments to 32.
SSIMD_HD inline VifColumnMoments VifFinishColumn(const VifColumnSums& sums, int scale,
                                                 int bit_depth) {
  const int mean_shift = VifMeanShift(scale, bit_depth);
  const int moment_shift = VifMomentShift(scale, bit_depth);
  VifColumnMoments m;
  m.mu1 = static_cast<uint16_t>(VifRoundShift(sums.ref, mean_shift));
  m.mu2 = static_cast<uint16_t>(VifRoundShift(sums.dis, mean_shift));
  m.ref_sq = static_cast<uint32_t>(VifRoundShift(sums.ref_sq, moment_shift));
  m.dis_sq = static_cast<uint32_t>(VifRoundShift(sums.dis_sq, moment_shift));
  m.ref_dis = static_cast<uint32_t>(VifRoundShift(sums.ref_dis, moment_shift));
  return m;
}

// The vertical moments at one column: `ref` and `dis` point at the column's sample in the
// current row of planes whose rows are `stride` elements apart and which hold VifFilterRadius
// valid (padded) rows above and below. The scale is a template argument so that the taps are
// constants. (A row-at-a-time caller may add the taps in any order: the sums are exact.)
template <int kScale, typename Sample>
SSIMD_HD inline VifColumnMoments VifVerticalMoments(const Sample* ref, const Sample* dis,
                                                    ptrdiff_t stride, int bit_depth) {
  constexpr int kRadius = VifFilterRadius(kScale);
  VifColumnSums sums;
  for (int k = 0; k <= 2 * kRadius; ++k) {
    const ptrdiff_t offset = static_cast<ptrdiff_t>(k - kRadius) * stride;
    VifAddColumnTap(sums, VifFilterTap(kScale, k), ref[offset], dis[offset]);
  }
  return VifFinishColumn(sums, kScale, bit_depth);
}

// VifAddColumnTap over a row: sums[x] += the tap's terms of r[x], d[x] for x < width.
struct VifColumnSumRows {
  uint32_t* ref;
  uint32_t* dis;
  uint64_t* ref_sq;
  uint64_t* dis_sq;
  uint64_t* ref_dis;
};

template <typename Sample>
SSIMD_HD inline void VifAddColumnTapRow(const VifColumnSumRows& rows, uint32_t tap,
                                        const Sample* __restrict r, const Sample* __restrict d,
                                        int width) {
  uint32_t* __restrict ref = rows.ref;
  uint32_t* __restrict dis = rows.dis;
  uint64_t* __restrict ref_sq = rows.ref_sq;
  uint64_t* __restrict dis_sq = rows.dis_sq;
  uint64_t* __restrict ref_dis = rows.ref_dis;
  for (int x = 0; x < width; ++x) {
    const uint32_t weighted_r = tap * r[x];
    const uint32_t weighted_d = tap * d[x];
    ref[x] += weighted_r;
    dis[x] += weighted_d;
    ref_sq[x] += static_cast<uint64_t>(weighted_r) * r[x];
    dis_sq[x] += static_cast<uint64_t>(weighted_d) * d[x];
    ref_dis[x] += static_cast<uint64_t>(weighted_r) * d[x];
  }
}

// Local variances and covariance of one pixel in Q16-ish units, libvmaf's int32 values: the
// unsigned difference of rounded moments reinterpreted as signed (slightly negative where
// rounding makes the square of the mean exceed the mean of the square).
struct VifSigmas {
  int32_t sigma1_sq;
  int32_t sigma2_sq;  // before libvmaf's clamp at 0 (VifAccumulatePixel applies it)
  int32_t sigma12;
};

// (a*b + 2^31) >> 32 of two Q32-ish means, as libvmaf rounds the products of means.
SSIMD_HD inline uint32_t VifMeanProduct(uint32_t a, uint32_t b) {
  return static_cast<uint32_t>((static_cast<uint64_t>(a) * b + 2147483648u) >> 32);
}

// The horizontal pass at one pixel from the padded rows of column moments (each pointer at the
// pixel's column; VifFilterRadius valid entries either side).
template <int kScale>
SSIMD_HD inline VifSigmas VifHorizontalSigmas(const uint32_t* mu1, const uint32_t* mu2,
                                              const uint32_t* ref_sq, const uint32_t* dis_sq,
                                              const uint32_t* ref_dis) {
  constexpr int kRadius = VifFilterRadius(kScale);
  uint32_t sum_mu1 = 0;
  uint32_t sum_mu2 = 0;
  uint64_t sum_ref_sq = 0;
  uint64_t sum_dis_sq = 0;
  uint64_t sum_ref_dis = 0;
  for (int k = 0; k <= 2 * kRadius; ++k) {
    const int o = k - kRadius;
    const uint32_t tap = VifFilterTap(kScale, k);
    sum_mu1 += tap * mu1[o];
    sum_mu2 += tap * mu2[o];
    sum_ref_sq += static_cast<uint64_t>(tap) * ref_sq[o];
    sum_dis_sq += static_cast<uint64_t>(tap) * dis_sq[o];
    sum_ref_dis += static_cast<uint64_t>(tap) * ref_dis[o];
  }
  const uint32_t xx = static_cast<uint32_t>(VifRoundShift(sum_ref_sq, 16));
  const uint32_t yy = static_cast<uint32_t>(VifRoundShift(sum_dis_sq, 16));
  const uint32_t xy = static_cast<uint32_t>(VifRoundShift(sum_ref_dis, 16));
  VifSigmas s;
  s.sigma1_sq = static_cast<int32_t>(xx - VifMeanProduct(sum_mu1, sum_mu1));
  s.sigma2_sq = static_cast<int32_t>(yy - VifMeanProduct(sum_mu2, sum_mu2));
  s.sigma12 = static_cast<int32_t>(xy - VifMeanProduct(sum_mu1, sum_mu2));
  return s;
}

// Index of the highest set bit of a non-zero value (63 - count of leading zeros).
SSIMD_HD inline int VifTopBit(uint64_t v) {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
  return 63 - __clzll(static_cast<long long>(v));
#else
  return 63 - __builtin_clzll(v);
#endif
}

// 2048*log2(v) from the table for v >= 2^17 (always true here: the arguments add the noise
// variance 2^17): the top 16 bits index the table and each dropped bit adds 2048. Written once
// for libvmaf's 32-bit and 64-bit variants, which agree wherever both apply.
SSIMD_HD inline int32_t VifLog2(const uint16_t* table, uint64_t v) {
  const int dropped = VifTopBit(v) - 15;
  return static_cast<int32_t>(table[v >> dropped]) + 2048 * dropped;
}

// The running integer sums of a scale: the log-domain numerator and denominator (Q11) of pixels
// whose reference variance reaches the noise level, and for the others their count and their
// clamped distorted variances.
struct VifSums {
  int64_t num_log = 0;
  int64_t den_log = 0;
  int64_t num_non_log = 0;
  int64_t den_non_log = 0;
};

SSIMD_HD inline void VifAddSums(VifSums& into, const VifSums& other) {
  into.num_log += other.num_log;
  into.den_log += other.den_log;
  into.num_non_log += other.num_non_log;
  into.den_non_log += other.den_non_log;
}

// The sums of a frame's four scales: everything a frame pair contributes before the host's
// finish, and what a device hands back. Scale 0 stays zero where vif_skip_scale0 skips it.
struct VifFrameSums {
  VifSums scale[kVifScales];
};

// Smallest side for which reflecting an index once about the picture's edges (-i -> i,
// n-1+i -> n-1-i) reproduces libvmaf's mirrored buffers at every scale. At 16 every scale is at
// least two samples a side and wider than each filter it meets is long on either side (scale s
// has at least 2^(4-s) samples, its filter reaches 2^(3-s)), so every mirrored row and column a
// filter reads is a copy of a row or column of the current scale. Below it, scale 3 is one
// sample wide or high and libvmaf's mirroring reads what an earlier scale left in its buffers.
inline constexpr int kVifReflectOnceMinSide = 16;

// Index i of a row or column of n entries, mirrored as libvmaf's buffers are; valid where
// -n < i < 2n-1 (always so when every side is at least kVifReflectOnceMinSide).
SSIMD_HD inline int VifReflectOnce(int i, int n) {
  return i < 0 ? -i : (i >= n ? 2 * (n - 1) - i : i);
}

// Adds one pixel's terms. den: log2(1 + sigma1_sq/sigma_nsq). num, where the covariance and the
// distorted variance are positive: log2((sv_sq + nsq + g^2 sigma1_sq) / (sv_sq + nsq)), with the
// gain g = sigma12 / sigma1_sq (plus libvmaf's epsilon) capped at the enhancement-gain limit only
// after the residual variance sv_sq = sigma2_sq - g*sigma12 has used the uncapped gain.
SSIMD_HD inline void VifAccumulatePixel(VifSums& sums, VifSigmas s, const uint16_t* log2_table,
                                        double enhn_gain_limit) {
  const int32_t sigma2_sq = s.sigma2_sq > 0 ? s.sigma2_sq : 0;
  if (s.sigma1_sq < kVifSigmaNsq) {
    sums.num_non_log += sigma2_sq;
    sums.den_non_log += 1;
    return;
  }
  // Unsigned sums, as libvmaf's values reach the table (variances stay far below 2^31).
  const uint32_t den_argument =
      static_cast<uint32_t>(kVifSigmaNsq) + static_cast<uint32_t>(s.sigma1_sq);
  sums.den_log += VifLog2(log2_table, den_argument) - 2048 * 17;
  if (s.sigma12 <= 0 || sigma2_sq <= 0) return;
  const double eps = 65536 * 1.0e-10;
  double g = static_cast<double>(s.sigma12) / (static_cast<double>(s.sigma1_sq) + eps);
  // libvmaf converts to int32 (truncation) and clamps at 0. The value never exceeds sigma2_sq,
  // and below 0 (even beyond int32, where x86 yields INT32_MIN) the clamp gives 0.
  const double residual = static_cast<double>(sigma2_sq) - g * static_cast<double>(s.sigma12);
  const int32_t sv_sq = residual > 0.0 ? static_cast<int32_t>(residual) : 0;
  g = g < enhn_gain_limit ? g : enhn_gain_limit;
  const uint32_t numer1 = static_cast<uint32_t>(sv_sq) + static_cast<uint32_t>(kVifSigmaNsq);
  const int64_t numer1_tmp =
      static_cast<int64_t>(g * g * static_cast<double>(s.sigma1_sq)) + numer1;
  sums.num_log += VifLog2(log2_table, static_cast<uint64_t>(numer1_tmp)) -
                  VifLog2(log2_table, numer1);
}

// libvmaf's num and den of a scale, rounded to binary32 as it stores them. The non-log
// numerator counts each low-variance pixel as 1 minus its distorted variance over 255^2 * 2^14.
SSIMD_HD inline float VifScaleNumerator(const VifSums& sums) {
  return static_cast<float>(static_cast<double>(sums.num_log) / 2048.0 +
                            (static_cast<double>(sums.den_non_log) -
                             (static_cast<double>(sums.num_non_log) / 16384.0) / 65025.0));
}

SSIMD_HD inline float VifScaleDenominator(const VifSums& sums) {
  return static_cast<float>(static_cast<double>(sums.den_log) / 2048.0 +
                            static_cast<double>(sums.den_non_log));
}

// integer_vif_scaleN: the binary32 quotient num/den, widened (0/0 is NaN, as in libvmaf).
SSIMD_HD inline double VifScaleScore(const VifSums& sums) {
  const float num = VifScaleNumerator(sums);
  const float den = VifScaleDenominator(sums);
  const float score = num / den;
  return static_cast<double>(score);
}

// One tap row of the low-pass that builds the next scale (scale `to_scale`'s filter), vertical
// pass at one column: the means of both pictures, rounded by VifMeanShift of the scale being
// left. `ref`/`dis` point at the column in the current row, as for VifVerticalMoments.
template <int kToScale, typename Sample>
SSIMD_HD inline void VifVerticalLowPass(const Sample* ref, const Sample* dis, ptrdiff_t stride,
                                        int bit_depth, uint32_t* ref_out, uint32_t* dis_out) {
  constexpr int kRadius = VifFilterRadius(kToScale);
  uint32_t sum_ref = 0;
  uint32_t sum_dis = 0;
  for (int k = 0; k <= 2 * kRadius; ++k) {
    const ptrdiff_t offset = static_cast<ptrdiff_t>(k - kRadius) * stride;
    const uint32_t tap = VifFilterTap(kToScale, k);
    sum_ref += tap * static_cast<uint32_t>(ref[offset]);
    sum_dis += tap * static_cast<uint32_t>(dis[offset]);
  }
  const int shift = VifMeanShift(kToScale - 1, bit_depth);
  *ref_out = static_cast<uint16_t>(VifRoundShift(sum_ref, shift));
  *dis_out = static_cast<uint16_t>(VifRoundShift(sum_dis, shift));
}

// The horizontal pass of the low-pass at one column of a padded row: the next scale's 16-bit
// sample.
template <int kToScale>
SSIMD_HD inline uint16_t VifHorizontalLowPass(const uint32_t* row) {
  constexpr int kRadius = VifFilterRadius(kToScale);
  uint32_t sum = 0;
  for (int k = 0; k <= 2 * kRadius; ++k) sum += VifFilterTap(kToScale, k) * row[k - kRadius];
  return static_cast<uint16_t>(VifRoundShift(sum, 16));
}

// ---- host only ----

// Entry `i` (kVifLog2TableFirst .. 65535) of libvmaf's table, round(2048 * log2f(i)). libvmaf
// takes the binary32 log2f; here the binary64 log2 is rounded to binary32, which is the correctly
// rounded log2f and stays more than 9000 binary64 ulps away from any binary32 tie over this range,
// so no libm's last-bit differences can change it (a libm's own log2f may differ in its last bit
// for a handful of i, none of which moves an entry: vif_test checks this against the platform's).
inline uint16_t VifLog2TableEntry(uint32_t i) {
  const float log2_i = static_cast<float>(std::log2(static_cast<double>(i)));
  return static_cast<uint16_t>(std::round(log2_i * 2048.0f));
}

// Fills table[kVifLog2TableFirst .. 65535] (the entries libvmaf fills; lower ones are never read
// and are set to 0). `table` holds kVifLog2TableSize entries.
inline void FillVifLog2Table(uint16_t* table) {
  for (uint32_t i = 0; i < kVifLog2TableFirst; ++i) table[i] = 0;
  for (uint32_t i = kVifLog2TableFirst; i < kVifLog2TableSize; ++i) {
    table[i] = VifLog2TableEntry(i);
  }
}

}  // namespace ssimd

#endif  // SSIMD_KERNELS_VMAF_VIF_MATH_H_
