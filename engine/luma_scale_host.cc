#include "engine/luma_scale_host.h"

#include <cstring>

#include "absl/strings/str_format.h"
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

// Whether `chroma` scales the chroma planes of `input` to those of `scored`.
bool ChromaPlanFits(const LumaScalePlan* chroma, const Geometry& input, const Geometry& scored) {
  if (chroma == nullptr) return false;
  const PlaneSize from = StoredChromaSize(input);
  const PlaneSize to = StoredChromaSize(scored);
  return chroma->src_width == from.width && chroma->src_height == from.height &&
         chroma->dst_width == to.width && chroma->dst_height == to.height &&
         chroma->bit_depth == input.bit_depth;
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
    const VerticalRounding rounding = RoundingOfRow(plan.rounding, y, plan.first_wide_row);
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

absl::Status ScalePackedPictureOnHost(const LumaScalePlan& plan, const Geometry& input,
                                      bool with_chroma, absl::Span<const uint8_t> in,
                                      std::string& out) {
  Geometry scored = input;
  scored.width = plan.dst_width;
  scored.height = plan.dst_height;
  const size_t in_bytes = with_chroma ? FrameBytes(input) : LumaBytes(input);
  if (in.size() != in_bytes || input.width != plan.src_width ||
      input.height != plan.src_height || input.bit_depth != plan.bit_depth ||
      (with_chroma && !ChromaPlanFits(plan.chroma.get(), input, scored))) {
    return absl::InternalError(absl::StrFormat(
        "a %dx%d %d-bit picture of %d bytes%s does not fit its upscale from %dx%d %d-bit%s",
        input.width, input.height, input.bit_depth, in.size(), with_chroma ? " with chroma" : "",
        plan.src_width, plan.src_height, plan.bit_depth,
        plan.chroma == nullptr ? " (luma only)" : " and its chroma"));
  }
  out.assign(with_chroma ? FrameBytes(scored) : LumaBytes(scored), '\0');
  const int sample = BytesPerSample(input.bit_depth);
  uint8_t* dst = reinterpret_cast<uint8_t*>(out.data());
  ScaleLumaOnHost(plan, in.data(), static_cast<size_t>(input.width) * sample, dst,
                  static_cast<size_t>(scored.width) * sample);
  if (!with_chroma) return absl::OkStatus();
  const LumaScalePlan& chroma = *plan.chroma;
  const size_t in_plane = static_cast<size_t>(chroma.src_width) * chroma.src_height * sample;
  const size_t out_plane = static_cast<size_t>(chroma.dst_width) * chroma.dst_height * sample;
  for (int p = 0; p < 2; ++p) {
    ScaleLumaOnHost(chroma, in.data() + LumaBytes(input) + p * in_plane,
                    static_cast<size_t>(chroma.src_width) * sample,
                    dst + LumaBytes(scored) + p * out_plane,
                    static_cast<size_t>(chroma.dst_width) * sample);
  }
  return absl::OkStatus();
}

}  // namespace ssimd
