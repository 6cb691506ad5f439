#include "engine/vmaf/motion_series.h"

#include <cmath>
#include <utility>

#include "absl/strings/str_format.h"

namespace ssimd {
namespace {

absl::Status CheckRange(const char* name, double value, double low, double high) {
  if (std::isnan(value) || value < low || value > high) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "motion option %s is %g; expected a value from %g to %g", name, value, low, high));
  }
  return absl::OkStatus();
}

// C's MIN(a, b) as libvmaf writes it: b unless a < b.
double Min(double a, double b) { return a < b ? a : b; }

// libvmaf's motion_blend (motion_blend_tools.h): score*factor + (1-factor)*min(offset, score), in
// that binary64 order, then capped at max_val.
double BlendedScore(const MotionSeriesOptions& options, double score) {
  const double blended = score * options.blend_factor +
                         (1.0 - options.blend_factor) * Min(options.blend_offset, score);
  return Min(blended, options.max_val);
}

}  // namespace

MotionSeriesOptions MotionSeriesOptionsOf(const MotionOptions& options) {
  MotionSeriesOptions out;
  out.max_val = options.max_val;
  out.blend_factor = options.blend_factor;
  out.blend_offset = options.blend_offset;
  out.five_frame_window = options.five_frame_window;
  out.moving_average = options.moving_average;
  return out;
}

absl::Status ValidateMotionSeriesOptions(const MotionSeriesOptions& options) {
  absl::Status status = CheckRange("motion_max_val", options.max_val, 0.0, 10000.0);
  if (status.ok()) status = CheckRange("motion_blend_factor", options.blend_factor, 0.0, 1.0);
  if (status.ok()) status = CheckRange("motion_blend_offset", options.blend_offset, 0.0, 1000.0);
  return status;
}

absl::StatusOr<MotionSeries> MotionSeries::Create(const MotionSeriesOptions& options) {
  if (absl::Status s = ValidateMotionSeriesOptions(options); !s.ok()) return s;
  return MotionSeries(options);
}

MotionSeries::MotionSeries(const MotionSeriesOptions& options)
    : options_(options), first_scored_(options.five_frame_window ? 2 : 1) {}

absl::Status MotionSeries::Add(double sad_score) {
  if (finished_) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "motion series: frame %d added after Finish()", static_cast<int64_t>(sad_.size())));
  }
  sad_.push_back(sad_score);
  Advance();
  return absl::OkStatus();
}

void MotionSeries::Finish() {
  finished_ = true;
  Advance();
}

std::vector<MotionFrame> MotionSeries::TakeFinished() { return std::exchange(ready_, {}); }

void MotionSeries::Emit(int64_t index, double motion2) {
  MotionFrame frame;
  frame.index = index;
  frame.motion2 = motion2;
  if (index < first_scored_) {
    // previous_blended_ holds the stamp here (set by Advance).
    frame.motion3 = previous_blended_;
  } else {
    const double blended = BlendedScore(options_, motion2);
    frame.motion3 = options_.moving_average ? (blended + previous_blended_) / 2.0 : blended;
    previous_blended_ = blended;
  }
  ready_.push_back(frame);
}

void MotionSeries::Advance() {
  const int64_t count = added();
  const int64_t m = first_scored_;
  while (next_ < count) {
    const int64_t i = next_;
    if (i < m) {
      // The frames before m carry the blended sad of frame m, or 0 where the series ends first.
      if (count > m) {
        previous_blended_ = BlendedScore(options_, sad_[m]);
      } else if (finished_) {
        previous_blended_ = 0.0;
      } else {
        return;
      }
      Emit(i, 0.0);
    } else {
      const bool has_next = i + 1 < count;
      if (!has_next && !finished_) return;
      double motion2;
      if (!has_next) {
        motion2 = sad_[i];
      } else {
        // Without the window the pair is (i, i+1); with it (i-1, i+1), where frame i-1 has a
        // SAD of its own only from frame m on.
        const int64_t low = options_.five_frame_window ? i - 1 : i;
        const double high = sad_[i + 1];
        motion2 = low >= m ? Min(sad_[low], high) : high;
      }
      Emit(i, motion2);
    }
    ++next_;
  }
}

}  // namespace ssimd
