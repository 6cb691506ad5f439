// The GPU backend: HIP kernels on every usable device, through a pool of stream slots.
#ifndef SSIMD_ENGINE_GPU_GPU_SCORER_H_
#define SSIMD_ENGINE_GPU_GPU_SCORER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/scorer.h"

namespace ssimd {

struct GpuOptions {
  int streams_per_device = 4;        // stream slots per device (frames in flight per device)
  std::vector<int> device_indices;   // empty = every device found
  int pool_repeat = 1;               // list each device this many times (tests: fake multi-GPU)
  // vmaf's adm, vif and motion on the device (--gpu_vmaf); off, vmaf frames run on the CPU, with
  // the reason logged and counted.
  bool vmaf_on_device = true;
};

struct GpuDeviceInfo {
  int index = 0;
  std::string name;
  int64_t total_memory_bytes = 0;
  std::string arch;  // e.g. "sm_90" or "gfx942:sramecc+:xnack-" (HIP's gcnArchName)
  // Whether this build's fat binary holds code for `arch` (device_arch.h). A device without it is
  // listed but not used.
  bool has_code = true;
};

// Per-device counters: engine/scorer.h's DeviceStats, which the server reads without this header.
using GpuDeviceStats = DeviceStats;

class GpuScorer : public Scorer {
 public:
  virtual std::vector<GpuDeviceInfo> Devices() const = 0;
  virtual std::vector<GpuDeviceStats> Stats() const = 0;
};

// UNAVAILABLE with the reason when no device can be used (no GPU, no driver, no device this build
// holds code for, or a build without GPU support: "ssimd was built without GPU support (build with
// --config=nvidia or --config=rocm)"). Devices without code are left out of the pool; Devices()
// lists them after the usable ones, with has_code false.
absl::StatusOr<std::unique_ptr<GpuScorer>> MakeGpuScorer(const GpuOptions& options = {});

}  // namespace ssimd

#endif  // SSIMD_ENGINE_GPU_GPU_SCORER_H_
