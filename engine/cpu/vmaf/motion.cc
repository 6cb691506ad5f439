#include "engine/cpu/vmaf/motion.h"

#include <cmath>
#include <cstddef>
#include <vector>

#include "absl/strings/str_format.h"
#include "engine/cpu/sample_plane.h"
#include "kernels/vmaf_motion_math.h"

namespace ssimd {
namespace {

absl::Status CheckRange(const char* name, double value, double low, double high) {
  if (std::isnan(value) || value < low || value > high) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "motion option %s is %g; expected a value from %g to %g", name, value, low, high));
  }
  return absl::OkStatus();
}

absl::Status CheckPlane(const LumaView& view, const char* what) {
  if (view.data == nullptr) {
    return absl::InvalidArgumentError(absl::StrFormat("motion: %s luma has no data", what));
  }
  if (view.bit_depth != 8 && view.bit_depth != 10 && view.bit_depth != 12 && view.bit_depth != 16) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "motion: %s luma has bit depth %d; expected 8, 10, 12 or 16", what, view.bit_depth));
  }
  if (view.width < kMotionMinSide || view.height < kMotionMinSide || view.width > kMaxDimension ||
      view.height > kMaxDimension) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "motion: %s luma is %dx%d; each side must be from %d to %d samples (the filter mirrors "
        "two samples beyond each edge)",
        what, view.width, view.height, kMotionMinSide, kMaxDimension));
  }
  const size_t row_bytes =
      static_cast<size_t>(view.width) * static_cast<size_t>(BytesPerSample(view.bit_depth));
  if (view.stride_bytes < row_bytes) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "motion: %s luma has a stride of %d bytes, less than one %d-sample row (%d bytes)", what,
        view.stride_bytes, view.width, row_bytes));
  }
  return absl::OkStatus();
}

// A filtered row that is all zero adds nothing, so its horizontal pass is skipped (as libvmaf
// skips it); identical content then costs only the vertical pass.
template <typename Accumulator, typename Sample>
uint64_t PlaneSad(const Sample* previous, size_t previous_stride, const Sample* current,
                  size_t current_stride, int width, int height, int bit_depth) {
  std::vector<int32_t> row(static_cast<size_t>(width));
  uint64_t sad = 0;
  for (int y = 0; y < height; ++y) {
    MotionVerticalRow<Accumulator>(previous, previous_stride, current, current_stride, width,
                                   height, y, bit_depth, row.data());
    int32_t any = 0;
    for (int x = 0; x < width; ++x) any |= row[x];
    if (any == 0) continue;
    sad += MotionRowSad(row.data(), width);
  }
  return sad;
}

}  // namespace

absl::Status ValidateMotionOptions(const MotionOptions& options) {
  absl::Status status = CheckRange("motion_fps_weight", options.fps_weight, 0.0, 5.0);
  if (status.ok()) status = CheckRange("motion_max_val", options.max_val, 0.0, 10000.0);
  if (status.ok()) status = CheckRange("motion_blend_factor", options.blend_factor, 0.0, 1.0);
  if (status.ok()) status = CheckRange("motion_blend_offset", options.blend_offset, 0.0, 1000.0);
  return status;
}

int MotionPreviousDistance(const MotionOptions& options) {
  return options.five_frame_window ? 2 : 1;
}

absl::StatusOr<uint64_t> MotionSadSum(const LumaView& previous_reference,
                                      const LumaView& reference) {
  if (absl::Status s = CheckPlane(previous_reference, "previous reference"); !s.ok()) return s;
  if (absl::Status s = CheckPlane(reference, "reference"); !s.ok()) return s;
  if (previous_reference.width != reference.width ||
      previous_reference.height != reference.height ||
      previous_reference.bit_depth != reference.bit_depth) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "motion: the previous reference luma is %dx%d %d-bit but the reference luma is %dx%d "
        "%d-bit; both must match",
        previous_reference.width, previous_reference.height, previous_reference.bit_depth,
        reference.width, reference.height, reference.bit_depth));
  }
  const SamplePlane previous(previous_reference);
  const SamplePlane current(reference);
  const int w = current.width(), h = current.height(), bits = current.bit_depth();
  if (!current.wide()) {
    return PlaneSad<int32_t>(previous.bytes(), previous.stride(), current.bytes(), current.stride(),
                             w, h, bits);
  }
  const uint16_t* previous_words = previous.words();
  const uint16_t* current_words = current.words();
  if (MotionVerticalNeeds64Bits(bits)) {
    return PlaneSad<int64_t>(previous_words, previous.stride(), current_words, current.stride(), w,
                             h, bits);
  }
  return PlaneSad<int32_t>(previous_words, previous.stride(), current_words, current.stride(), w, h,
                           bits);
}

absl::StatusOr<double> MotionSadScoreFromSum(const MotionOptions& options, uint64_t sad_sum,
                                             int width, int height) {
  if (absl::Status s = ValidateMotionOptions(options); !s.ok()) return s;
  if (width < 1 || height < 1) {
    return absl::InvalidArgumentError(
        absl::StrFormat("motion: a %dx%d picture has no pixels to average over", width, height));
  }
  return MotionScoreFromSad(sad_sum, width, height, options.fps_weight, options.max_val);
}

absl::StatusOr<double> MotionSadScore(const MotionOptions& options, int64_t frame_index,
                                      const LumaView* previous_reference,
                                      const LumaView& reference) {
  if (absl::Status s = ValidateMotionOptions(options); !s.ok()) return s;
  if (frame_index < 0) {
    return absl::InvalidArgumentError(
        absl::StrFormat("motion: frame index %d is negative", frame_index));
  }
  if (options.force_zero || frame_index < MotionPreviousDistance(options)) return 0.0;
  if (previous_reference == nullptr) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "motion: frame %d needs the reference luma of frame %d, which was not given", frame_index,
        frame_index - MotionPreviousDistance(options)));
  }
  absl::StatusOr<uint64_t> sad = MotionSadSum(*previous_reference, reference);
  if (!sad.ok()) return sad.status();
  return MotionScoreFromSad(*sad, reference.width, reference.height, options.fps_weight,
                            options.max_val);
}

}  // namespace ssimd
