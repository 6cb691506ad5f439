// The temporal half of libvmaf's integer `motion` feature (the flush step of
// libvmaf/src/feature/integer_motion.c at Netflix/vmaf f85a8536): from each frame's
// VMAF_integer_feature_motion_sad_score, in frame order, the frames' motion2 and motion3
// (VMAF_integer_feature_motion2_score / _motion3_score, the VMAF model's integer_motion2 and
// integer_motion3), each emitted as soon as later frames fix it. Host only; the per-frame SAD
// scores may come from any backend.
//
// When a frame is final (m = 1, or 2 with five_frame_window):
// - frame i >= m: motion2[i] compares sad[i] (five_frame_window: sad[i-1]) with sad[i+1], so it is
//   final once frame i+1 is added, or at Finish() for the last frame (which keeps its own sad).
//   motion3[i] needs only motion2[i] and frame i-1's blended score.
// - frames i < m: motion2 is 0, and motion3 is a stamp taken from a LATER frame, the blended
//   sad[m] (0 if the series ends before frame m). So frame 0 is final once frame m is added:
//   a lag of one frame (two for frame 0 with five_frame_window), as for every other frame.
// Frames are emitted in order.
#ifndef SSIMD_ENGINE_VMAF_MOTION_SERIES_H_
#define SSIMD_ENGINE_VMAF_MOTION_SERIES_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "engine/vmaf/extractor_options.h"

namespace ssimd {

// The options of libvmaf's integer motion that the series uses, with its defaults and ranges
// (inclusive; NaN refused). The per-frame options (force_zero, fps_weight) act on the SAD scores
// before they get here.
struct MotionSeriesOptions {
  double max_val = 10000.0;        // motion_max_val, 0..10000: cap of motion3's blended scores
  double blend_factor = 1.0;       // motion_blend_factor, 0..1
  double blend_offset = 40.0;      // motion_blend_offset, 0..1000
  bool five_frame_window = false;  // motion_five_frame_window
  bool moving_average = false;     // motion_moving_average
};

// The series' share of the motion extractor's options.
MotionSeriesOptions MotionSeriesOptionsOf(const MotionOptions& options);

// OK, or INVALID_ARGUMENT naming the first option outside libvmaf's range.
absl::Status ValidateMotionSeriesOptions(const MotionSeriesOptions& options);

// One final frame: libvmaf's VMAF_integer_feature_motion2_score and _motion3_score.
struct MotionFrame {
  int64_t index = 0;
  double motion2 = 0.0;
  double motion3 = 0.0;
};

class MotionSeries {
 public:
  // INVALID_ARGUMENT for options outside libvmaf's ranges.
  static absl::StatusOr<MotionSeries> Create(const MotionSeriesOptions& options);

  // The next frame's VMAF_integer_feature_motion_sad_score (its index is the number added before
  // it). FAILED_PRECONDITION after Finish().
  absl::Status Add(double sad_score);

  // The series has ended: the remaining frames become final.
  void Finish();

  // The frames that became final since the last call, in frame order.
  std::vector<MotionFrame> TakeFinished();

  int64_t added() const { return static_cast<int64_t>(sad_.size()); }
  bool finished() const { return finished_; }

 private:
  explicit MotionSeries(const MotionSeriesOptions& options);

  // Makes final every frame whose inputs are known.
  void Advance();
  void Emit(int64_t index, double motion2);

  MotionSeriesOptions options_;
  int64_t first_scored_ = 1;  // m above: frames before it have no SAD of their own
  std::vector<double> sad_;
  bool finished_ = false;
  int64_t next_ = 0;               // the first frame not yet final
  double previous_blended_ = 0.0;  // frame next_-1's blended score (the stamp before frame m)
  std::vector<MotionFrame> ready_;
};

}  // namespace ssimd

#endif  // SSIMD_ENGINE_VMAF_MOTION_SERIES_H_
