// libswscale's separable scaler (FFmpeg 5.1), one output sample of a plane (luma or chroma) at a
// time, for the host model and the device kernels alike (docs/adr/0080). The filters themselves
// (positions and integer coefficients) are built once on the host (engine/luma_scale_plan.h);
// this header holds only the per-sample arithmetic of the two passes:
//
//   horizontal: every input row -> 15-bit intermediate samples (coefficients sum to 2^14)
//   vertical:   intermediate rows -> output samples              (coefficients sum to 2^12)
//
// The vertical pass of 8-bit output has two roundings in libswscale: its C code (used with
// accurate_rnd everywhere, and on machines without x86 SIMD) keeps a 32-bit sum, while its x86
// SIMD code (used for plain flags on x86-64) keeps 16-bit words and drops the low 16 bits of each
// product. Both are reproduced here; which one a machine's libswscale uses is checked at run time
// against libswscale itself (engine/media/luma_scale_check.h), never assumed.
#ifndef SSIMD_KERNELS_LUMA_SCALE_MATH_H_
#define SSIMD_KERNELS_LUMA_SCALE_MATH_H_

#include <cstddef>
#include <cstdint>

#include "kernels/hd.h"

namespace ssimd {

// How the vertical pass of 8-bit output rounds (see above). 10-bit output has one rounding.
enum class VerticalRounding : int32_t {
  kWide = 0,         // libswscale's C code: 32-bit sum, one rounding at the end
  kPackedWords = 1,  // libswscale's x86 SIMD code: 16-bit words, each product truncated
};

// libswscale's x86 SIMD vertical pass cannot write the last two luma rows (its coefficient table
// would run past the end), so from luma row height - 2 on it writes every plane with its C code:
// those rows round kWide. A chroma row is written in the step of luma row (row << vertical_shift),
// so a subsampled chroma plane's C rows start at the first row whose luma row is past that point.
SSIMD_HD inline int FirstWideRow(int luma_height, int vertical_shift) {
  return (luma_height - 2 + (1 << vertical_shift) - 1) >> vertical_shift;
}

// Intermediate sample: the sum of taps * coefficients, shifted to 15 bits and capped at 2^15 - 1
// (a bicubic overshoot above white); N-bit input shifts by N - 1.
template <typename Sample>
SSIMD_HD inline int16_t HorizontalLumaSample(const Sample* row, const int16_t* coefficients,
                                             int taps, int bit_depth) {
  int32_t sum = 0;
  for (int t = 0; t < taps; ++t) {
    sum += static_cast<int32_t>(row[t]) * static_cast<int32_t>(coefficients[t]);
  }
  const int32_t value = sum >> (bit_depth - 1);
  return static_cast<int16_t>(value < 32767 ? value : 32767);
}

// 8-bit output sample, wide rounding: a 32-bit sum with 64 << 12 added (half of the final shift's
// unit) and shifted by 19, then clamped to 0..255. `column` steps between rows of the intermediate.
SSIMD_HD inline uint8_t VerticalLumaSample8Wide(const int16_t* column, size_t row_step,
                                               const int16_t* coefficients, int taps) {
  int32_t sum = 64 << 12;
  for (int t = 0; t < taps; ++t) {
    // libswscale adds the products as unsigned (wrapping) values; the sum never wraps in
    // practice, but the same two's complement addition keeps it identical if it ever did.
    sum = static_cast<int32_t>(static_cast<uint32_t>(sum) +
                               static_cast<uint32_t>(static_cast<int32_t>(column[t * row_step]) *
                                                     coefficients[t]));
  }
  const int32_t value = sum >> 19;
  return static_cast<uint8_t>(value < 0 ? 0 : (value > 255 ? 255 : value));
}

// 8-bit output sample, packed-word rounding: a 16-bit accumulator starts at (64 + 8 * (taps - 1))
// >> 4, each tap adds the high half of the signed 16x16-bit product (floor of product / 2^16),
// all additions wrap at 16 bits, and the result is shifted right by 3 and saturated to 0..255.
SSIMD_HD inline uint8_t VerticalLumaSample8PackedWords(const int16_t* column, size_t row_step,
                                                      const int16_t* coefficients, int taps) {
  int16_t sum = static_cast<int16_t>((64 + 8 * (taps - 1)) >> 4);
  for (int t = 0; t < taps; ++t) {
    const int32_t product =
        static_cast<int32_t>(column[t * row_step]) * static_cast<int32_t>(coefficients[t]);
    const int16_t high = static_cast<int16_t>(product >> 16);
    sum = static_cast<int16_t>(static_cast<uint16_t>(sum) + static_cast<uint16_t>(high));
  }
  const int32_t value = static_cast<int32_t>(sum) >> 3;
  return static_cast<uint8_t>(value < 0 ? 0 : (value > 255 ? 255 : value));
}

// N-bit output sample (9..14 bits): a 32-bit sum with half of the final shift's unit added,
// shifted by 27 - N, and clamped to 0..2^N - 1.
SSIMD_HD inline uint16_t VerticalLumaSampleDeep(const int16_t* column, size_t row_step,
                                               const int16_t* coefficients, int taps,
                                               int bit_depth) {
  const int shift = 11 + 16 - bit_depth;
  int32_t sum = 1 << (shift - 1);
  for (int t = 0; t < taps; ++t) {
    sum += static_cast<int32_t>(column[t * row_step]) * static_cast<int32_t>(coefficients[t]);
  }
  const int32_t value = sum >> shift;
  const int32_t top = (1 << bit_depth) - 1;
  return static_cast<uint16_t>(value < 0 ? 0 : (value > top ? top : value));
}

// The rounding libswscale applies to output row `y` of a plane with `rounding` chosen, whose rows
// from `first_wide_row` on are written by its C code (FirstWideRow).
SSIMD_HD inline VerticalRounding RoundingOfRow(VerticalRounding rounding, int y,
                                               int first_wide_row) {
  return (rounding == VerticalRounding::kPackedWords && y < first_wide_row)
             ? VerticalRounding::kPackedWords
             : VerticalRounding::kWide;
}

}  // namespace ssimd

#endif  // SSIMD_KERNELS_LUMA_SCALE_MATH_H_
