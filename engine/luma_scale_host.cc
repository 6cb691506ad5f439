#include "engine/luma_scale_host.h"

#include <cstring>
#include <vector>

#include "engine/picture.h"
#include "kernels/luma_scale_math.h"

namespace ssimd {
namespace {

template <typename Sample>
void HorizontalPass(const LumaScalePlan& plan, const uint8_t* src, size_t src_stride,
                    int16_t* intermediate) {
  const ScaleFilter1D& f = plan.horizontal;
  std::vector<Sample> row(plan.src_width);
  for (int y = 0; y < plan.src_height; ++y) {
    // A copy, so that 16-bit samples are read aligned whatever the caller's stride.
    std::memcpy(row.data(), src + static_cast<size_t>(y) * src_stride,
                sizeof(Sample) * plan.src_width);
    int16_t* out = intermediate + static_cast<size_t>(y) * plan.dst_width;
    for (int x = 0; x < plan.dst_width; ++x) {
      out[x] = HorizontalLumaSample(row.data() + f.first_input[x],
                                    f.coefficients.data() + static_cast<size_t>(x) * f.taps,
                                    f.taps, plan.bit_depth);
    }
  }
}

}  // namespace

void ScaleLumaOnHost(const LumaScalePlan& plan, const uint8_t* src, size_t src_stride,
                     uint8_t* dst, size_t dst_stride) {
  std::vector<int16_t> intermediate(static_cast<size_t>(plan.src_height) * plan.dst_width);
  if (plan.bit_depth == 8) {
    HorizontalPass<uint8_t>(plan, src, src_stride, intermediate.data());
  } else {
    HorizontalPass<uint16_t>(plan, src, src_stride, intermediate.data());
  }
  const ScaleFilter1D& f = plan.vertical;
  const size_t row_step = static_cast<size_t>(plan.dst_width);
  for (int y = 0; y < plan.dst_height; ++y) {
    const int16_t* column_top = intermediate.data() + f.first_input[y] * row_step;
    const int16_t* coefficients = f.coefficients.data() + static_cast<size_t>(y) * f.taps;
    uint8_t* out = dst + static_cast<size_t>(y) * dst_stride;
    const VerticalRounding rounding = RoundingOfRow(plan.rounding, y, plan.dst_height);
    for (int x = 0; x < plan.dst_width; ++x) {
      if (plan.bit_depth != 8) {
        StoreSample(out, x, plan.bit_depth,
                    VerticalLumaSampleDeep(column_top + x, row_step, coefficients, f.taps,
                                           plan.bit_depth));
      } else if (rounding == VerticalRounding::kPackedWords) {
        out[x] = VerticalLumaSample8PackedWords(column_top + x, row_step, coefficients, f.taps);
      } else {
        out[x] = VerticalLumaSample8Wide(column_top + x, row_step, coefficients, f.taps);
      }
    }
  }
}

}  // namespace ssimd
