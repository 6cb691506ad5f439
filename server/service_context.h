// What every RPC of the scoring service shares: the engine, the worker pool, metrics, settings and
// the counters behind the concurrency caps.
#ifndef SSIMD_SERVER_SERVICE_CONTEXT_H_
#define SSIMD_SERVER_SERVICE_CONTEXT_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>

#include "absl/base/call_once.h"

#include "base/thread_pool.h"
#include "engine/dispatcher.h"
#include "engine/gpu/gpu_scorer.h"
#include "engine/media/hw_decode_device.h"
#include "engine/media/picture_memory_budget.h"
#include "server/file_inputs.h"
#include "server/metrics.h"
#include "server/input_resolver.h"
#include "server/path_guard.h"
#include "server/service_options.h"
#include "server/stream_registry.h"
#include "server/upload_spool.h"

namespace ssimd {

struct ServiceContext {
  Dispatcher* dispatcher = nullptr;
  GpuScorer* gpu = nullptr;  // null when no device is usable; owned by the dispatcher
  std::string gpu_unavailable_reason;
  // The GPU's video decoding engine, when --hw_decode names one and it opened; why not otherwise.
  std::shared_ptr<HwDecodeDevice> hw_decode;
  std::string hw_decode_unavailable_reason;
  ThreadPool* pool = nullptr;  // scoring tasks; the CPU engine has its own (base/thread_pool.h)
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

  // The one budget of decoded pictures every call's inputs reserve from (docs/adr/0084). Made on
  // first use from `options`, which the server sets before it serves, with its changes reported
  // to `metrics`.
  PictureMemoryBudget& picture_memory() {
    absl::call_once(picture_memory_once_, [this] {
      PictureMemoryBudget::Options budget;
      budget.capacity_bytes = options.decoded_memory_budget_bytes;
      budget.wait = options.decoded_memory_wait;
      budget.capacity_name = "--decoded_memory_budget";
      budget.wait_name = "--decoded_memory_wait";
      if (ServiceMetrics* m = metrics; m != nullptr) {
        m->SetDecodedMemoryBudget(budget.capacity_bytes);
        budget.observer = [m](PictureMemoryBudget::Event event, int64_t reserved) {
          using Event = PictureMemoryBudget::Event;
          m->UpdateDecodedMemoryReserved(reserved);
          if (event == Event::kWaited) m->RecordDecodedMemoryWait();
          if (event == Event::kRefusedOverBudget) m->RecordDecodedMemoryRefusal("over_budget");
          if (event == Event::kRefusedTimeout) m->RecordDecodedMemoryRefusal("wait_timeout");
        };
      }
      picture_memory_ = std::make_unique<PictureMemoryBudget>(budget);
    });
    return *picture_memory_;
  }

  // How a ScoreFiles or ScoreLadder call opens its inputs: with the server's decoders, its
  // per-picture limit and its budget, waiting for memory until `call_ended` says the call is
  // over. `held_by_call` counts what the call's inputs reserved; it must outlive the openings.
  InputOpening OpeningForCall(std::function<bool()> call_ended, int64_t* held_by_call) {
    InputOpening opening;
    opening.hardware = hw_decode;
    opening.decoders = options.decoders_per_file;
    opening.max_picture_pixels = options.max_picture_pixels;
    opening.budget = &picture_memory();
    opening.held_by_call = held_by_call;
    opening.call_ended = std::move(call_ended);
    opening.metrics = metrics;
    return opening;
  }

 private:
  absl::once_flag picture_memory_once_;
  std::unique_ptr<PictureMemoryBudget> picture_memory_;
};

}  // namespace ssimd

#endif  // SSIMD_SERVER_SERVICE_CONTEXT_H_
