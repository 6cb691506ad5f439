// libvmaf's integer `motion` feature on the CPU, bit for bit (libvmaf/src/feature/
// integer_motion.c at Netflix/vmaf f85a8536): each frame's VMAF_integer_feature_motion_sad_score.
// The motion2/motion3 scores that follow from the whole series are engine/vmaf/motion_series.h.
//
// The work per frame is stateless: libvmaf's motion reads only reference pictures, so a frame's
// SAD is a function of the current reference luma and an earlier one, and frames can be scored in
// any order or in parallel. The caller keeps the earlier pictures: MotionPreviousDistance says
// which one (1 frame back, or 2 with motion_five_frame_window).
#ifndef SSIMD_ENGINE_CPU_VMAF_MOTION_H_
#define SSIMD_ENGINE_CPU_VMAF_MOTION_H_

#include <cstdint>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "engine/picture.h"
#include "engine/vmaf/extractor_options.h"

namespace ssimd {

// OK, or INVALID_ARGUMENT naming the first option outside libvmaf's range.
absl::Status ValidateMotionOptions(const MotionOptions& options);

// How many frames back the picture a frame's SAD compares with lies: 1, or 2 with
// five_frame_window. Frames before that distance have no SAD (their score is 0).
int MotionPreviousDistance(const MotionOptions& options);

// The raw SAD sum (an exact integer) of the filtered difference `previous_reference` minus
// `reference`: libvmaf's sum before it becomes a score. INVALID_ARGUMENT when the planes differ in
// size or bit depth, lack data or stride, or a side is below 3 samples (libvmaf's mirrored borders
// would read outside the picture). Samples are not range-checked: ones above the bit depth's peak
// (ValidateSampleRange rejects them) give an unspecified sum.
absl::StatusOr<uint64_t> MotionSadSum(const LumaView& previous_reference,
                                      const LumaView& reference);

// libvmaf's VMAF_integer_feature_motion_sad_score of a frame of `width` x `height` whose SAD sum is
// `sad_sum`, ignoring force_zero and the frame index (MotionSadScore applies both).
// INVALID_ARGUMENT for invalid options or an empty picture.
absl::StatusOr<double> MotionSadScoreFromSum(const MotionOptions& options, uint64_t sad_sum,
                                             int width, int height);

// Frame `frame_index`'s VMAF_integer_feature_motion_sad_score. It is 0 with force_zero and for the
// first MotionPreviousDistance frames, where `previous_reference` is not read (it may be null);
// otherwise `previous_reference` must be the reference MotionPreviousDistance frames back.
// INVALID_ARGUMENT for invalid options, a negative index, a missing previous picture or the
// errors of MotionSadSum.
absl::StatusOr<double> MotionSadScore(const MotionOptions& options, int64_t frame_index,
                                      const LumaView* previous_reference,
                                      const LumaView& reference);

}  // namespace ssimd

#endif  // SSIMD_ENGINE_CPU_VMAF_MOTION_H_
