// The per-sample and per-row integer arithmetic of libvmaf's integer `motion` feature
// (libvmaf/src/feature/integer_motion.c at Netflix/vmaf f85a8536): the difference of two
// reference luma planes, blurred by a 5-tap filter vertically then horizontally with mirrored
// borders and rounding shifts, and the sum of the absolute values. Everything is exact integer
// arithmetic, so rows may be summed in any order, on the host or on a device; the sum becomes
// libvmaf's VMAF_integer_feature_motion_sad_score in MotionScoreFromSad.
//
// The filter is a Gaussian in 16-bit fixed point, taps 3571, 16004, 26386, 16004, 3571 (summing
// to 65536), libvmaf's integer_motion.h.
//
// Ranges (why these integer types suffice, for samples within the bit depth b): a difference is
// within +-(2^b - 1) and the taps sum to 2^16, so the vertical sum is within +-(2^b - 1) * 2^16,
// which fits 32 signed bits up to b = 15 (libvmaf uses 32 bits at 8 bits and 64 above). After the
// shift by b a value is within +-65535; the horizontal sum of five of them needs 33 bits, computed
// exactly in 32-bit parts (MotionHorizontalAbs). Each absolute value is at most 65535, so a row of
// at most 32768 samples (kMaxDimension) sums to less than 2^31: libvmaf's 32-bit row sum cannot
// wrap within ssimd's limits. Samples above the bit depth (which callers reject) give wrong but
// defined values: the 32-bit products are formed unsigned, where overflow wraps.
#ifndef SSIMD_KERNELS_VMAF_MOTION_MATH_H_
#define SSIMD_KERNELS_VMAF_MOTION_MATH_H_

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "kernels/hd.h"

namespace ssimd {

inline constexpr int kMotionTaps = 5;
inline constexpr int kMotionRadius = 2;
// Mirroring reads up to two samples beyond an edge (index -2 reads 2, size+1 reads size-3), so a
// side needs at least three samples; libvmaf does not check this.
inline constexpr int kMotionMinSide = 3;

// Index `index` (within -2..size+1) reflected into 0..size-1 without repeating the edge sample.
SSIMD_HD inline int MotionMirror(int index, int size) {
  if (index < 0) return -index;
  if (index >= size) return 2 * size - index - 2;
  return index;
}

// Whether the vertical sum needs 64 bits (see the ranges above). Both widths give the same value
// where both are exact; the narrow one is faster.
SSIMD_HD inline bool MotionVerticalNeeds64Bits(int bit_depth) { return bit_depth > 15; }

// The vertically filtered difference previous - current of one column, from the differences
// d_k = previous_k - current_k of rows y-2..y+2 (already mirrored), rounded to nearest (ties up)
// and shifted right by the bit depth (8 at 8 bits, as at any depth), arithmetically as libvmaf
// does. The symmetric taps multiply the sums of the rows that share them: the same integer.
template <typename Accumulator>
SSIMD_HD inline int32_t MotionVerticalValue(Accumulator d0, Accumulator d1, Accumulator d2,
                                            Accumulator d3, Accumulator d4, int bit_depth) {
  using Wrapping = typename std::make_unsigned<Accumulator>::type;
  const Wrapping sum = Wrapping{3571} * static_cast<Wrapping>(d0 + d4) +
                       Wrapping{16004} * static_cast<Wrapping>(d1 + d3) +
                       Wrapping{26386} * static_cast<Wrapping>(d2) +
                       (Wrapping{1} << (bit_depth - 1));
  return static_cast<int32_t>(static_cast<Accumulator>(sum) >> bit_depth);
}

// Row y's vertically filtered difference into `out` (`width` values). Strides count samples.
// Accumulator: int64_t where MotionVerticalNeeds64Bits, else int32_t (or int64_t).
template <typename Accumulator, typename Sample>
SSIMD_HD inline void MotionVerticalRow(const Sample* previous, size_t previous_stride,
                                       const Sample* current, size_t current_stride, int width,
                                       int height, int y, int bit_depth, int32_t* out) {
  const Sample* p[kMotionTaps];
  const Sample* c[kMotionTaps];
  for (int k = 0; k < kMotionTaps; ++k) {
    const size_t row = static_cast<size_t>(MotionMirror(y - kMotionRadius + k, height));
    p[k] = previous + row * previous_stride;
    c[k] = current + row * current_stride;
  }
  // Plain pointers rather than the arrays keep the loop simple enough to vectorise.
  const Sample* p0 = p[0];
  const Sample* p1 = p[1];
  const Sample* p2 = p[2];
  const Sample* p3 = p[3];
  const Sample* p4 = p[4];
  const Sample* c0 = c[0];
  const Sample* c1 = c[1];
  const Sample* c2 = c[2];
  const Sample* c3 = c[3];
  const Sample* c4 = c[4];
  for (int x = 0; x < width; ++x) {
    out[x] = MotionVerticalValue<Accumulator>(
        Accumulator{p0[x]} - Accumulator{c0[x]}, Accumulator{p1[x]} - Accumulator{c1[x]},
        Accumulator{p2[x]} - Accumulator{c2[x]}, Accumulator{p3[x]} - Accumulator{c3[x]},
        Accumulator{p4[x]} - Accumulator{c4[x]}, bit_depth);
  }
}

// |round(sum / 2^16)| (ties up, the shift arithmetic) of the horizontal filter over five
// vertically filtered values v0..v4, each within +-65535. The sum needs 33 bits, so it is taken
// in parts that fit 32 signed bits: 3571*(v0+v4), 16004*(v1+v3) (16004 * 131070 < 2^31) and
// 26386*v2. floor((A + B + C + 2^15) / 2^16) is the sum of the parts' floors (A >> 16 ...) plus
// the floor of the sum of their remainders (A & 0xffff ...) and 2^15: the same integer as one
// 64-bit sum, in 32-bit lanes that vectorise.
SSIMD_HD inline uint32_t MotionHorizontalAbs(int32_t v0, int32_t v1, int32_t v2, int32_t v3,
                                             int32_t v4) {
  const int32_t a = static_cast<int32_t>(3571u * static_cast<uint32_t>(v0 + v4));
  const int32_t b = static_cast<int32_t>(16004u * static_cast<uint32_t>(v1 + v3));
  const int32_t c = static_cast<int32_t>(26386u * static_cast<uint32_t>(v2));
  const int32_t quotients = (a >> 16) + (b >> 16) + (c >> 16);
  const int32_t remainders = (a & 0xffff) + (b & 0xffff) + (c & 0xffff) + (1 << 15);
  const int32_t value = quotients + (remainders >> 16);
  return value < 0 ? 0u - static_cast<uint32_t>(value) : static_cast<uint32_t>(value);
}

// The same at column x of a vertically filtered row, mirrored at both ends.
SSIMD_HD inline uint32_t MotionAbsoluteSample(const int32_t* row, int width, int x) {
  return MotionHorizontalAbs(row[MotionMirror(x - 2, width)], row[MotionMirror(x - 1, width)],
                             row[x], row[MotionMirror(x + 1, width)],
                             row[MotionMirror(x + 2, width)]);
}

// Sum of the absolute horizontally filtered values of one vertically filtered row (at least
// kMotionMinSide wide). The interior needs no mirroring, which keeps its loop simple enough to
// vectorise; the order of an integer sum does not matter.
SSIMD_HD inline uint32_t MotionRowSad(const int32_t* row, int width) {
  uint32_t sad = 0;
  sad += MotionAbsoluteSample(row, width, 0);
  sad += MotionAbsoluteSample(row, width, 1);
  const int interior_end = width - kMotionRadius;
  for (int x = kMotionRadius; x < interior_end; ++x) {
    sad += MotionHorizontalAbs(row[x - 2], row[x - 1], row[x], row[x + 1], row[x + 2]);
  }
  const int tail_start = interior_end > kMotionRadius ? interior_end : kMotionRadius;
  for (int x = tail_start; x < width; ++x) sad += MotionAbsoluteSample(row, width, x);
  return sad;
}

// libvmaf's VMAF_integer_feature_motion_sad_score of a frame with a SAD sum: the sum in units of
// 1/256, per pixel (the pixel count an unsigned 32-bit product, as libvmaf forms it), times
// fps_weight, capped at max_val, in libvmaf's binary64 operation order.
SSIMD_HD inline double MotionScoreFromSad(uint64_t sad, int width, int height, double fps_weight,
                                          double max_val) {
  const uint32_t pixels = static_cast<uint32_t>(width) * static_cast<uint32_t>(height);
  const double score = static_cast<double>(sad) / 256.0 / static_cast<double>(pixels) * fps_weight;
  return score < max_val ? score : max_val;
}

}  // namespace ssimd

#endif  // SSIMD_KERNELS_VMAF_MOTION_MATH_H_
