// Command-line flags of ssimd_server (Abseil flags) and their conversion into settings.
#ifndef SSIMD_SERVER_SERVER_FLAGS_H_
#define SSIMD_SERVER_SERVER_FLAGS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/flags/declare.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "engine/cpu/cpu_scorer.h"
#include "engine/gpu/gpu_scorer.h"
#include "server/logging.h"
#include "server/metrics.h"
#include "server/server_runner.h"

namespace ssimd {

// Everything main() needs, read from the flags and checked.
struct ServerFlags {
  ServerOptions server;
  std::string metrics_address;  // empty: no /metrics endpoint
  MetricsOptions metrics;
  LoggingOptions logging;
  CpuScorerOptions cpu;
  GpuOptions gpu;
  absl::Duration grace_period;
  // Model files in --vmaf_model_dir that were not loaded, each with why (logged at start-up).
  std::vector<std::string> vmaf_models_skipped;
};

// Where --vmaf_model_dir looks by default (deploy/ installs libvmaf's models there).
inline constexpr char kDefaultVmafModelDir[] = "/usr/share/ssimd/vmaf-models";

// INVALID_ARGUMENT naming the flag and its accepted values.
absl::StatusOr<ServerFlags> ServerFlagsFromCommandLine();

// The smallest --decoded_memory_budget accepted: one decoder's working state is 16 MiB.
inline constexpr int64_t kMinDecodedMemoryBudget = int64_t{64} << 20;

// Bytes from "1073741824", "512M", "4G", "1.5G", "4GiB" (K, M, G, T: binary units, any case);
// INVALID_ARGUMENT for anything else, zero or negative.
absl::StatusOr<int64_t> ParseByteSize(absl::string_view text);
// The memory limit of this process's cgroup under `cgroup_root` (v2 memory.max, else v1
// memory/memory.limit_in_bytes); empty when there is none or it cannot be read.
std::optional<int64_t> CgroupMemoryLimit(const std::string& cgroup_root = "/sys/fs/cgroup");
// Physical memory of the machine; 0 when unknown.
int64_t PhysicalMemoryBytes();
// The default --decoded_memory_budget: half of the smaller of the cgroup limit and physical
// memory, within [kMinDecodedMemoryBudget, 4 GiB]; 4 GiB when neither is known.
int64_t DefaultDecodedMemoryBudget(std::optional<int64_t> cgroup_limit, int64_t physical_bytes);

}  // namespace ssimd

#endif  // SSIMD_SERVER_SERVER_FLAGS_H_
