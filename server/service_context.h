// What every RPC of the scoring service shares: the engine, the worker pool, metrics, settings and
// the counters behind the concurrency caps.
#ifndef SSIMD_SERVER_SERVICE_CONTEXT_H_
#define SSIMD_SERVER_SERVICE_CONTEXT_H_

#include <atomic>
#include <cstdint>
#include <string>

#include "engine/dispatcher.h"
#include "engine/gpu/gpu_scorer.h"
#include "engine/media/hw_decode_device.h"
#include "server/metrics.h"
#include "server/input_resolver.h"
#include "server/path_guard.h"
#include "server/service_options.h"
#include "server/stream_registry.h"
#include "server/upload_spool.h"
#include "server/worker_pool.h"

namespace ssimd {

struct ServiceContext {
  Dispatcher* dispatcher = nullptr;
  GpuScorer* gpu = nullptr;  // null when no device is usable; owned by the dispatcher
  std::string gpu_unavailable_reason;
  // The GPU's video decoding engine, when --hw_decode names one and it opened; why not otherwise.
  std::shared_ptr<HwDecodeDevice> hw_decode;
  std::string hw_decode_unavailable_reason;
  WorkerPool* pool = nullptr;
  ServiceMetrics* metrics = nullptr;
  const PathGuard* files = nullptr;  // null: no paths (no --files_root)
  UploadSpool* uploads = nullptr;    // null: UploadFile and "upload:<id>" inputs are disabled
  // Opens the inputs of ScoreFiles and ScoreLadder (paths, uploads, URLs); never null once the
  // server runs.
  const InputResolver* inputs = nullptr;
  StreamRegistry* streams = nullptr;  // the open streams (idle watchdog, shutdown)
  ServiceOptions options;

  // Set when the server starts to shut down: new RPCs are refused with UNAVAILABLE.
  std::atomic<bool> draining{false};
  std::atomic<int> active_streams{0};
  std::atomic<int> pending_pairs{0};
  std::atomic<uint64_t> next_stream_id{1};
};

}  // namespace ssimd

#endif  // SSIMD_SERVER_SERVICE_CONTEXT_H_
