// The values of a frame that depend on the frames after it, added in input order once those are
// scored: vmaf's motion2 and motion3 (libvmaf's motion takes, for frame i, the lesser of its own
// and frame i + 1's motion) and the vmaf score its model predicts from them.
//
// The backends score each frame on its own (frame i reads the reference of frame i - 1 for its
// motion, FramePair::previous_reference), so frames may be scored in any order and in parallel;
// a pipeline then hands each frame's scores here in input order and writes frame i once
// frames_final() passes it. Without vmaf every frame is final as soon as it is added.
#ifndef SSIMD_ENGINE_VMAF_TEMPORAL_FINISH_H_
#define SSIMD_ENGINE_VMAF_TEMPORAL_FINISH_H_

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "engine/features.h"
#include "engine/vmaf/motion_series.h"

namespace ssimd {

class TemporalFinish {
 public:
  explicit TemporalFinish(const FeatureSet& features);

  // Frame number frames_added() was scored: reads its per-frame motion value from `scores`.
  // INVALID_ARGUMENT when the scores lack it (a backend that did not compute vmaf's features).
  absl::Status Add(const FrameScores& scores);
  uint64_t frames_added() const { return added_; }

  // No frame follows those added: the last ones become final.
  void EndOfInput();

  // Frames [0, frames_final()) have every temporal value known.
  uint64_t frames_final() const { return final_; }

  // Adds frame `index`'s temporal values (integer_motion2, integer_motion3, vmaf) to `scores`,
  // the scores it was added with. Frames are completed once each, in order, below
  // frames_final(). Returns the values added (for metrics that observe scores as they are
  // written). INVALID_ARGUMENT when the model cannot be applied to the scores.
  absl::StatusOr<FrameScores> Complete(uint64_t index, FrameScores& scores);

 private:
  struct Motion {
    double motion2 = 0;
    double motion3 = 0;
  };
  void TakeFinishedMotion();

  std::optional<VmafOptions> vmaf_;
  std::unique_ptr<MotionSeries> series_;
  absl::Status error_;  // why the series could not be made from the model's options
  uint64_t added_ = 0;
  uint64_t final_ = 0;
  // Motion of the frames from `first_pending_` on that are final but not completed yet.
  uint64_t first_pending_ = 0;
  std::deque<Motion> pending_;
};

// Completes the temporal values of a lone frame pair (ScorePair): a clip of one frame, whose
// motion is 0 as libvmaf's is for a first frame. Returns the values added, as Complete does.
absl::StatusOr<FrameScores> FinishLoneFrame(const FeatureSet& features, FrameScores& scores);

}  // namespace ssimd

#endif  // SSIMD_ENGINE_VMAF_TEMPORAL_FINISH_H_
