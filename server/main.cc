// ssimd_server: the scoring service. Flags: --help, or server/server_flags.cc.
#include <pthread.h>
#include <signal.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <utility>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "engine/cpu/cpu_scorer.h"
#include "engine/dispatcher.h"
#include "process/frame_memory.h"
#include "engine/gpu/gpu_scorer.h"
#include "server/capabilities.h"
#include "server/logging.h"
#include "server/metrics.h"
#include "server/server_flags.h"
#include "server/server_runner.h"

ABSL_FLAG(bool, keep_frame_memory, true,
          "Keep freed frame buffers in the process instead of returning them to the kernel "
          "between frames (malloc thresholds; docs/adr/0065): much faster; free memory "
          "is handed back every --frame_memory_trim_interval.");
ABSL_FLAG(absl::Duration, frame_memory_trim_interval, absl::Seconds(10),
          "With --keep_frame_memory: how often free memory goes back to the kernel.");

namespace ssimd {
namespace {

int Fail(const absl::Status& status) {
  LogEvent(spdlog::level::critical, "ssimd_server cannot start", {{"error", status.ToString()}});
  return 1;
}

int Run(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "ssimd_server: scores video frames with libvmaf's SSIM features over gRPC.\n"
      "  ssimd_server --address=127.0.0.1:50051 --metrics_address=127.0.0.1:9090");
  absl::ParseCommandLine(argc, argv);
  if (absl::GetFlag(FLAGS_frame_memory_trim_interval) <= absl::ZeroDuration()) {
    return Fail(absl::InvalidArgumentError(
        "--frame_memory_trim_interval: expected a positive duration, e.g. 10s"));
  }
  std::unique_ptr<FrameMemoryTrimmer> trimmer;
  if (absl::GetFlag(FLAGS_keep_frame_memory)) {
    KeepFrameMemoryInProcess();
    trimmer = std::make_unique<FrameMemoryTrimmer>(absl::GetFlag(FLAGS_frame_memory_trim_interval));
  }

  // Signals are taken by one waiting thread; every thread started later inherits the mask.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  auto flags = ServerFlagsFromCommandLine();
  if (!flags.ok()) return Fail(flags.status());
  if (absl::Status s = ConfigureLogging(flags->logging); !s.ok()) return Fail(s);

  ServiceMetrics metrics(flags->metrics);
  if (!flags->metrics_address.empty()) {
    if (absl::Status s = metrics.StartHttp(flags->metrics_address); !s.ok()) return Fail(s);
  }

  Backends backends;
  std::unique_ptr<GpuScorer> gpu;
  if (flags->server.service.backend_policy == BackendPreference::kCpu) {
    backends.gpu_unavailable_reason = "the GPU is turned off (--backend=cpu)";
  } else {
    auto made = MakeGpuScorer(flags->gpu);
    if (made.ok()) {
      gpu = *std::move(made);
    } else {
      backends.gpu_unavailable_reason = std::string(made.status().message());
    }
  }
  std::vector<GpuDeviceInfo> devices;
  int gpu_slots = 0;
  if (gpu != nullptr) {
    devices = gpu->Devices();
    for (const GpuDeviceStats& s : gpu->Stats()) gpu_slots += s.slots_total;
  }
  backends.gpu = gpu.get();
  backends.dispatcher = std::make_unique<Dispatcher>(MakeCpuScorer(flags->cpu), std::move(gpu),
                                                     backends.gpu_unavailable_reason);
  const std::string backend = flags->server.service.backend_policy == BackendPreference::kCpu
                                  ? "cpu"
                                  : backends.dispatcher->DefaultBackend();
  const std::string cpu_reason = backends.gpu_unavailable_reason;

  // Enough workers to keep every GPU slot busy, and at least one per core for CPU frames.
  ServerOptions options = flags->server;
  if (options.workers == 0) {
    options.workers = std::max<int>(static_cast<int>(std::thread::hardware_concurrency()), gpu_slots);
  }
  auto runner = ServerRunner::Start(options, std::move(backends), &metrics);
  if (!runner.ok()) return Fail(runner.status());

  LogStartup(backend, devices, backend == "cpu" ? cpu_reason : "",
             {{"version", kSsimdVersion},
              {"grpc_address", options.address},
              {"grpc_port", absl::StrCat((*runner)->port())},
              {"metrics_port", absl::StrCat(metrics.HttpPort())},
              {"workers", absl::StrCat(options.workers)},
              {"tls", options.tls.cert_file.empty() ? "off"
                      : options.tls.client_ca_file.empty() ? "tls" : "mtls"},
              {"files_root", options.service.files_root},
              {"upload_dir", options.uploads.dir},
              {"allow_url_prefix", absl::StrJoin(options.urls.allowed_prefixes, ",")},
              {"vmaf_models", absl::StrJoin(options.service.vmaf_models->Names(), ",")},
              {"serving", (*runner)->serving() ? "SERVING" : "NOT_SERVING"}});

  for (const std::string& skipped : flags->vmaf_models_skipped) {
    LogEvent(spdlog::level::warn, "VMAF model not loaded",
             {{"vmaf_model_dir", options.service.vmaf_models->directory()}, {"reason", skipped}});
  }

  int signal_number = 0;
  sigwait(&stop_signals, &signal_number);
  LogEvent(spdlog::level::info, "shutting down: draining streams",
           {{"signal", signal_number == SIGTERM ? "SIGTERM" : "SIGINT"},
            {"grace_period", absl::FormatDuration(flags->grace_period)},
            {"active_streams", absl::StrCat((*runner)->context().active_streams.load())}});
  (*runner)->Shutdown(flags->grace_period);
  LogEvent(spdlog::level::info, "stopped");
  return 0;
}

}  // namespace
}  // namespace ssimd

int main(int argc, char** argv) { return ssimd::Run(argc, argv); }
