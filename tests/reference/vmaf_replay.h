// Upstream libvmaf's vmaf (model vmaf_v0.6.1) and the integer features it reports, for a reference
// set (expected_metrics.json), replayed through a Scorer and the temporal finish as a pipeline runs
// them: each frame scored on its own with the reference of the frame before, then motion2,
// motion3 and the prediction added in frame order. The GPU tests pass their own scorer.
#ifndef SSIMD_TESTS_REFERENCE_VMAF_REPLAY_H_
#define SSIMD_TESTS_REFERENCE_VMAF_REPLAY_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "engine/scorer.h"
#include "engine/vmaf/model.h"
#include "tests/reference/psnr_replay.h"
#include "tests/reference/reference_set.h"

namespace ssimd::testing {

// libvmaf's vmaf_v0.6.1 from $SSIMD_VMAF_MODEL_DIR where it names a directory holding it (libvmaf's
// model files are not part of this repository); null otherwise.
std::shared_ptr<const VmafModel> ReferenceVmafModel();

// Why `vmaf` itself is not compared where ReferenceVmafModel() is null.
std::string VmafModelAbsent();

// Scores every frame of `pair` the vmaf tool read with the vmaf feature and compares every value
// the entry gives for it: the integer features, motion, and `vmaf` where `model` is libvmaf's
// vmaf_v0.6.1 (with another model, such as a test model, vmaf is not compared). Where libvmaf
// refused vmaf for the pair's size, the scorer must refuse it too (counted in `refused`).
struct VmafReplay {
  ReplayReport report;
  bool refused = false;
  std::string note;
};
absl::StatusOr<VmafReplay> ReplayVmafPair(const ReferencePair& pair,
                                          const ExpectedMetrics& expected,
                                          std::shared_ptr<const VmafModel> model,
                                          bool model_is_libvmafs, Scorer& scorer);

}  // namespace ssimd::testing

#endif  // SSIMD_TESTS_REFERENCE_VMAF_REPLAY_H_
