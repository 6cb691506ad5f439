// One frame's share of libvmaf's VMAF on the CPU: the integer adm, vif and motion values a model
// reads, computed with the options the model sets for each extractor and reported under
// libvmaf's JSON keys (with the suffix libvmaf adds for non-default options, e.g.
// integer_adm2_egl_1 for vmaf_v0.6.1neg). What depends on later frames (motion2, motion3 and the
// prediction) is engine/vmaf/temporal_finish.h.
#ifndef SSIMD_ENGINE_CPU_VMAF_VMAF_FRAME_H_
#define SSIMD_ENGINE_CPU_VMAF_VMAF_FRAME_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "base/thread_pool.h"
#include "engine/cpu/vmaf/adm.h"
#include "engine/cpu/vmaf/motion.h"
#include "engine/cpu/vmaf/vif.h"
#include "engine/features.h"
#include "engine/picture.h"
#include "engine/vmaf/model.h"

namespace ssimd {

// OK when vmaf can be scored as `vmaf` asks at the size `geometry` (every backend checks so):
// FAILED_PRECONDITION when its model was not resolved; INVALID_ARGUMENT for pictures too small
// for libvmaf's adm and vif filters, or for options libvmaf's extractors refuse together (adm's
// viewing set-up); UNIMPLEMENTED for motion_five_frame_window (it compares a frame with the one
// two back, which the backends are not given).
absl::Status CheckVmafRequest(const Geometry& geometry, const VmafOptions& vmaf);

// Adds one frame's values under libvmaf's keys for `model` (every backend reports them so): adm's,
// vif's, and motion's score (0 for a first frame).
void AddVmafFeatureScores(const VmafModel& model, const AdmScores& adm, const VifScores& vif,
                          double motion_sad_score, FrameScores& scores);

// Adds one frame's adm, vif and motion values to `scores` (three tasks on `pool`). The motion
// value compares `reference` with `previous_reference`, the reference of the frame before; it is 0
// for a first frame (null), as libvmaf's is.
absl::Status AddVmafFrameScores(const VmafOptions& options, const LumaView& reference,
                                const LumaView& distorted, const LumaView* previous_reference,
                                ThreadPool& pool, FrameScores& scores);

}  // namespace ssimd

#endif  // SSIMD_ENGINE_CPU_VMAF_VMAF_FRAME_H_
