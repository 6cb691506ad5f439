// MakeGpuScorer in builds without a GPU toolchain (the default build).
#include <memory>
#include <utility>

#include "absl/status/status.h"
#include "engine/gpu/gpu_scorer.h"
#include "engine/gpu/gpu_test_hooks.h"

namespace ssimd {

absl::StatusOr<std::unique_ptr<GpuScorer>> MakeGpuScorerWithHooks(
    const GpuOptions& /*options*/, std::shared_ptr<GpuTestHooks> /*hooks*/) {
  return absl::UnavailableError(
      "ssimd was built without GPU support (build with --config=nvidia or --config=rocm)");
}

absl::StatusOr<std::unique_ptr<GpuScorer>> MakeGpuScorer(const GpuOptions& options) {
  return MakeGpuScorerWithHooks(options, nullptr);
}

}  // namespace ssimd
