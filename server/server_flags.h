// Command-line flags of ssimd_server (Abseil flags) and their conversion into settings.
#ifndef SSIMD_SERVER_SERVER_FLAGS_H_
#define SSIMD_SERVER_SERVER_FLAGS_H_

#include <string>

#include "absl/flags/declare.h"
#include "absl/status/statusor.h"
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
};

// INVALID_ARGUMENT naming the flag and its accepted values.
absl::StatusOr<ServerFlags> ServerFlagsFromCommandLine();

}  // namespace ssimd

#endif  // SSIMD_SERVER_SERVER_FLAGS_H_
