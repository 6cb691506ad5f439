// Test-only controls of the GPU backend: paths that real devices take rarely (the ordered host sum,
// device errors, a lost device) are forced here so tests can check them on any GPU.
#ifndef SSIMD_ENGINE_GPU_GPU_TEST_HOOKS_H_
#define SSIMD_ENGINE_GPU_GPU_TEST_HOOKS_H_

#include <atomic>
#include <memory>

#include "absl/status/statusor.h"
#include "engine/gpu/gpu_scorer.h"

namespace ssimd {

struct GpuTestHooks {
  // Sum float_ssim's (and float_ms_ssim's per-scale) per-pixel terms on the host in raster order
  // on every frame, as the backend does only when the device's sum is too close to a binary32
  // rounding boundary.
  std::atomic<bool> always_ordered_sum{false};
  // Sum ssim's per-pixel terms on the host in raster order where the exact sum is asked for,
  // instead of on the device: the reference the device's exact sum is compared with, and the
  // benchmark's baseline.
  std::atomic<bool> exact_sum_on_host{false};
  // The next this-many frames fail after their kernels are queued with a runtime error the
  // device survives (an invalid copy).
  std::atomic<int> recoverable_errors{0};
  // The next this-many frames run a kernel that faults the device, which loses it for good.
  std::atomic<int> device_faults{0};
};

// MakeGpuScorer, with `hooks` read on every frame.
absl::StatusOr<std::unique_ptr<GpuScorer>> MakeGpuScorerWithHooks(
    const GpuOptions& options, std::shared_ptr<GpuTestHooks> hooks);

}  // namespace ssimd

#endif  // SSIMD_ENGINE_GPU_GPU_TEST_HOOKS_H_
