// ssimd-bench: side-by-side throughput of the GPU and CPU backends, in one run.
//   device  one frame at a time on one GPU stream slot: the engine's own per-stage times
//           (device events around upload, kernels and read-back)
//   engine  frames from memory straight into the engine (no gRPC), several feeding threads
//   e2e     ScoreClip over loopback gRPC to a real ssimd_server, 1/4/8/16 concurrent streams
//   unary   back-to-back ScorePair calls (latency)
// Every result is compared with the CPU engine's scores of the same pair. Writes a table to
// stdout, and JSON / the table to files when asked. `--quick` is a CPU-only smoke run.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "base/status_macros.h"
#include "bench/engine_cells.h"
#include "bench/grpc_cells.h"
#include "bench/host_copy.h"
#include "bench/report.h"
#include "bench/server_process.h"
#include "bench/synthetic_frames.h"
#include "client/ssimd_client.h"
#include "engine/cpu/cpu_scorer.h"
#include "process/frame_memory.h"
#include "engine/gpu/gpu_scorer.h"

ABSL_FLAG(bool, quick, false,
          "CPU-only smoke run: one 1920x1080 size at 8 and 10 bits, 1 and 2 streams, short cells "
          "(replaces the size, depth, stream, backend, section and timing flags).");
ABSL_FLAG(std::vector<std::string>, sizes, std::vector<std::string>({"1920x1080", "3840x2160"}),
          "Picture sizes, WIDTHxHEIGHT, comma-separated.");
ABSL_FLAG(std::vector<std::string>, bit_depths, std::vector<std::string>({"8", "10"}),
          "Bit depths (8, 10, 12 or 16).");
ABSL_FLAG(std::vector<std::string>, streams, std::vector<std::string>({"1", "4", "8", "16"}),
          "Concurrent ScoreClip streams of the e2e section.");
ABSL_FLAG(std::vector<std::string>, backends, std::vector<std::string>({"gpu", "cpu"}),
          "Backends to measure: gpu, cpu.");
ABSL_FLAG(std::vector<std::string>, sections,
          std::vector<std::string>({"device", "engine", "e2e", "unary"}),
          "Sections to run: device, engine, e2e, unary.");
ABSL_FLAG(double, cell_seconds, 3, "Measured window of each cell, seconds.");
ABSL_FLAG(double, warmup_seconds, 0.5, "Uncounted warm-up before each cell's window, seconds.");
ABSL_FLAG(std::vector<std::string>, features, std::vector<std::string>({"float_ssim"}),
          "Features in libvmaf's argument style, e.g. float_ssim,ssim.");
ABSL_FLAG(int, frames_per_set, 8, "Distinct synthetic pairs per geometry (cycled).");
ABSL_FLAG(int, engine_threads, 0, "Threads feeding the engine section; 0 = one per core.");
ABSL_FLAG(std::vector<std::string>, engine_gpu_slots, std::vector<std::string>({"4", "8"}),
          "GPU stream slots per device for the engine section (one cell set per value).");
ABSL_FLAG(int, gpu_slots, 8, "--gpu_streams_per_device of the server the e2e section starts.");
ABSL_FLAG(std::string, server, "",
          "ssimd_server binary; default: ssimd_server beside this program.");
ABSL_FLAG(std::vector<std::string>, server_flags, {},
          "Extra flags for the server, comma-separated (e.g. --max_frames_in_flight=8).");
ABSL_FLAG(std::string, target, "",
          "HOST:PORT of a server that already runs (loopback); no server is started.");
ABSL_FLAG(bool, connection_per_stream, true,
          "Give every stream its own TCP connection; false puts all streams on one.");
ABSL_FLAG(double, pinned_gb_per_second, 55,
          "Pinned host-to-device bandwidth of the machine (the engine target is half of it).");
ABSL_FLAG(std::string, json_out, "", "Write the JSON report here.");
ABSL_FLAG(std::string, table_out, "", "Write the table here too.");
ABSL_FLAG(std::string, server_log, "", "Server output goes here; default: a file in $TMPDIR.");

namespace ssimd::bench {
namespace {

struct Settings {
  std::vector<Geometry> geometries;
  std::vector<int> streams;
  bool gpu = false;
  bool cpu = false;
  bool device = false, engine = false, e2e = false, unary = false;
  CellTiming timing;
  FeatureSet features;
  int frames_per_set = 8;
  int engine_threads = 1;
  std::vector<int> engine_gpu_slots;
  int gpu_slots = 8;
  std::string server;
  std::vector<std::string> server_flags;
  std::string target;
  bool connection_per_stream = true;
};

absl::StatusOr<std::vector<int>> Ints(const std::vector<std::string>& texts, const char* flag) {
  std::vector<int> out;
  for (const std::string& t : texts) {
    int v = 0;
    if (!absl::SimpleAtoi(t, &v) || v < 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("--", flag, ": expected positive integers, got \"", t, "\""));
    }
    out.push_back(v);
  }
  return out;
}

bool Has(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

std::string DefaultServerPath() {
  char self[4096];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
  if (n <= 0) return "ssimd_server";
  std::string dir(self, n);
  dir = dir.substr(0, dir.rfind('/'));
  return dir + "/ssimd_server";
}

absl::StatusOr<Settings> SettingsFromFlags() {
  Settings s;
  const bool quick = absl::GetFlag(FLAGS_quick);
  std::vector<std::string> sizes = absl::GetFlag(FLAGS_sizes);
  std::vector<std::string> depths = absl::GetFlag(FLAGS_bit_depths);
  std::vector<std::string> streams = absl::GetFlag(FLAGS_streams);
  std::vector<std::string> backends = absl::GetFlag(FLAGS_backends);
  std::vector<std::string> sections = absl::GetFlag(FLAGS_sections);
  s.timing.measure_seconds = absl::GetFlag(FLAGS_cell_seconds);
  s.timing.warmup_seconds = absl::GetFlag(FLAGS_warmup_seconds);
  s.frames_per_set = absl::GetFlag(FLAGS_frames_per_set);
  s.engine_threads = absl::GetFlag(FLAGS_engine_threads);
  if (quick) {
    sizes = {"1920x1080"};
    depths = {"8", "10"};
    streams = {"1", "2"};
    backends = {"cpu"};
    sections = {"engine", "e2e", "unary"};
    s.timing.measure_seconds = 0.6;
    s.timing.warmup_seconds = 0.2;
    s.frames_per_set = 2;
    if (s.engine_threads == 0) s.engine_threads = 2;
  }
  if (s.engine_threads <= 0) {
    s.engine_threads = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  }
  if (!(s.timing.measure_seconds > 0) || !(s.timing.warmup_seconds >= 0)) {
    return absl::InvalidArgumentError(
        "--cell_seconds must be positive and --warmup_seconds not negative");
  }
  if (s.frames_per_set < 1) return absl::InvalidArgumentError("--frames_per_set: expected >= 1");
  absl::StatusOr<std::vector<int>> bits = Ints(depths, "bit_depths");
  if (!bits.ok()) return bits.status();
  for (const std::string& size : sizes) {
    std::vector<std::string> wh = absl::StrSplit(size, 'x');
    int w = 0, h = 0;
    if (wh.size() != 2 || !absl::SimpleAtoi(wh[0], &w) || !absl::SimpleAtoi(wh[1], &h)) {
      return absl::InvalidArgumentError(
          absl::StrCat("--sizes: expected WIDTHxHEIGHT such as 1920x1080, got \"", size, "\""));
    }
    for (int b : *bits) {
      Geometry g;
      g.width = w;
      g.height = h;
      g.bit_depth = b;
      SSIMD_RETURN_IF_ERROR(ValidateGeometry(g));
      s.geometries.push_back(g);
    }
  }
  absl::StatusOr<std::vector<int>> counts = Ints(streams, "streams");
  if (!counts.ok()) return counts.status();
  s.streams = *counts;
  absl::StatusOr<std::vector<int>> slots = Ints(absl::GetFlag(FLAGS_engine_gpu_slots),
                                                "engine_gpu_slots");
  if (!slots.ok()) return slots.status();
  s.engine_gpu_slots = *slots;
  for (const std::string& b : backends) {
    if (b != "gpu" && b != "cpu") {
      return absl::InvalidArgumentError(absl::StrCat("--backends: expected gpu or cpu, got ", b));
    }
  }
  for (const std::string& sec : sections) {
    if (sec != "device" && sec != "engine" && sec != "e2e" && sec != "unary") {
      return absl::InvalidArgumentError(
          absl::StrCat("--sections: expected device, engine, e2e or unary, got ", sec));
    }
  }
  s.gpu = Has(backends, "gpu");
  s.cpu = Has(backends, "cpu");
  s.device = Has(sections, "device");
  s.engine = Has(sections, "engine");
  s.e2e = Has(sections, "e2e");
  s.unary = Has(sections, "unary");
  absl::StatusOr<FeatureSet> features = ParseFeatureArgs(absl::GetFlag(FLAGS_features));
  if (!features.ok()) return features.status();
  s.features = *features;
  s.gpu_slots = absl::GetFlag(FLAGS_gpu_slots);
  if (s.gpu_slots < 1) return absl::InvalidArgumentError("--gpu_slots: expected >= 1");
  s.server = absl::GetFlag(FLAGS_server);
  if (s.server.empty()) s.server = DefaultServerPath();
  s.server_flags = absl::GetFlag(FLAGS_server_flags);
  s.target = absl::GetFlag(FLAGS_target);
  s.connection_per_stream = absl::GetFlag(FLAGS_connection_per_stream);
  return s;
}

// The data and ground truth of one geometry.
struct Workload {
  FrameSet frames;
  std::vector<FrameScores> expected;
};

CellResult Skipped(const std::string& section, const std::string& backend, const Geometry& g,
                   int concurrency, const std::string& why) {
  CellResult c;
  c.section = section;
  c.backend = backend;
  c.width = g.width;
  c.height = g.height;
  c.bit_depth = g.bit_depth;
  c.concurrency = concurrency;
  c.skipped = true;
  c.error = why;
  return c;
}

// One line per cell on stderr as it finishes, so a run cut short still leaves its numbers.
void Progress(const CellResult& c) {
  std::fprintf(stderr,
               "  %-6s %-3s %-17s x%-3d slots %d: %9.1f pairs/s %7.2f GB/s p50 %7.2f p99 %7.2f ms "
               "kernels %.3f ms, cores client %.1f server %.1f, scores %lld/%lld differ%s%s\n",
               c.section.c_str(), c.backend.c_str(), GeometryLabel(c).c_str(), c.concurrency,
               c.gpu_slots, c.pairs_per_second, c.gb_per_second, c.latency_p50_ms,
               c.latency_p99_ms, c.compute_ms, c.client_cores, c.server_cores,
               static_cast<long long>(c.check.mismatched), static_cast<long long>(c.check.checked),
               c.error.empty() ? "" : "  ", c.error.c_str());
}

std::string CpuModel() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  }
  return "unknown";
}

// The in-process sections: device (one slot, one thread) and engine (several threads).
void RunEngineSections(const Settings& s, std::vector<Workload>& work, RunInfo& info,
                       std::vector<CellResult>& cells) {
  if (s.gpu && (s.device || s.engine)) {
    GpuOptions one;
    one.streams_per_device = 1;
    absl::StatusOr<std::unique_ptr<GpuScorer>> probe = MakeGpuScorer(one);
    if (!probe.ok()) {
      const std::string why = std::string(probe.status().message());
      info.emplace_back("gpu_engine", "unavailable: " + why);
      for (Workload& w : work) {
        if (s.device) cells.push_back(Skipped("device", "gpu", w.frames.geometry, 1, why));
        if (s.engine) cells.push_back(Skipped("engine", "gpu", w.frames.geometry, s.engine_threads, why));
      }
    } else {
      std::vector<std::string> names;
      for (const GpuDeviceInfo& d : (*probe)->Devices()) {
        names.push_back(absl::StrCat(d.index, ": ", d.name, " (", d.arch, ", ",
                                     d.total_memory_bytes >> 20, " MiB)"));
      }
      info.emplace_back("gpu_devices", absl::StrJoin(names, "; "));
      if (s.device) {
        CellTiming timing{s.timing.warmup_seconds, std::min(1.0, s.timing.measure_seconds)};
        for (Workload& w : work) {
          CellResult c = RunEngineCell({"device", probe->get(), "gpu", 1, &w.frames, &w.expected,
                                        s.features, 1, timing});
          Progress(c);
          cells.push_back(c);
        }
      }
      probe->reset();
      if (s.engine) {
        for (int slots : s.engine_gpu_slots) {
          GpuOptions options;
          options.streams_per_device = slots;
          absl::StatusOr<std::unique_ptr<GpuScorer>> gpu = MakeGpuScorer(options);
          for (Workload& w : work) {
            if (!gpu.ok()) {
              cells.push_back(Skipped("engine", "gpu", w.frames.geometry, s.engine_threads,
                                      std::string(gpu.status().message())));
              continue;
            }
            // At least two threads per slot, so a slot never waits for its next frame.
            const int threads = std::max(s.engine_threads, 2 * slots);
            CellResult c = RunEngineCell({"engine", gpu->get(), "gpu", slots, &w.frames,
                                          &w.expected, s.features, threads, s.timing});
            Progress(c);
            cells.push_back(c);
          }
        }
      }
    }
  }
  if (s.cpu && s.engine) {
    // As the server runs it: one core per frame, frames side by side on every core.
    std::unique_ptr<Scorer> cpu = MakeCpuScorer(CpuScorerOptions{1});
    for (Workload& w : work) {
      CellResult c = RunEngineCell({"engine", cpu.get(), "cpu", 0, &w.frames, &w.expected,
                                    s.features, s.engine_threads, s.timing});
      Progress(c);
      cells.push_back(c);
    }
  }
}

void RunGrpcSections(const Settings& s, std::vector<Workload>& work, RunInfo& info,
                     std::vector<CellResult>& cells) {
  std::unique_ptr<ServerProcess> server;
  std::string target = s.target;
  if (target.empty()) {
    std::vector<std::string> flags = {"--metrics_address=", "--log_level=warn", "--backend=auto",
                                      absl::StrCat("--gpu_streams_per_device=", s.gpu_slots),
                                      "--grace_period=2s", "--reflection=false"};
    flags.insert(flags.end(), s.server_flags.begin(), s.server_flags.end());
    const char* tmp = std::getenv("TMPDIR");
    std::string log = absl::GetFlag(FLAGS_server_log);
    if (log.empty()) log = absl::StrCat(tmp ? tmp : "/tmp", "/ssimd-bench-server.log");
    info.emplace_back("server", absl::StrCat(s.server, " ", absl::StrJoin(flags, " ")));
    info.emplace_back("server_log", log);
    absl::StatusOr<std::unique_ptr<ServerProcess>> started =
        ServerProcess::Start(s.server, flags, log, absl::Seconds(60));
    if (!started.ok()) {
      const std::string why = started.status().ToString();
      std::fprintf(stderr, "e2e and unary sections skipped: %s\n", why.c_str());
      for (Workload& w : work) {
        cells.push_back(Skipped("e2e", s.gpu ? "gpu" : "cpu", w.frames.geometry, 0, why));
      }
      return;
    }
    server = *std::move(started);
    target = server->target();
  }
  info.emplace_back("target", target);
  SsimdClient probe(grpc::CreateChannel(target, grpc::InsecureChannelCredentials()));
  absl::StatusOr<v1::Capabilities> caps = probe.GetCapabilities(absl::Seconds(10));
  bool gpu_ready = false;
  std::string no_gpu = "the server reported no capabilities";
  if (caps.ok()) {
    gpu_ready = caps->devices_size() > 0;
    no_gpu = caps->gpu_unavailable_reason().empty() ? "the server has no GPU"
                                                    : caps->gpu_unavailable_reason();
    info.emplace_back("server_version", caps->version());
    info.emplace_back("server_default_backend", caps->default_backend());
    info.emplace_back("server_frames_in_flight_per_stream",
                      absl::StrCat(caps->limits().max_frames_in_flight_per_stream()));
  }
  std::vector<v1::Backend> backends;
  if (s.gpu) backends.push_back(v1::BACKEND_GPU);
  if (s.cpu) backends.push_back(v1::BACKEND_CPU);
  const pid_t pid = server ? server->pid() : 0;
  for (Workload& w : work) {
    for (v1::Backend backend : backends) {
      const char* name = backend == v1::BACKEND_GPU ? "gpu" : "cpu";
      if (s.e2e) {
        for (int n : s.streams) {
          if (backend == v1::BACKEND_GPU && !gpu_ready) {
            cells.push_back(Skipped("e2e", name, w.frames.geometry, n, no_gpu));
            continue;
          }
          GrpcCellSpec spec{target, pid, backend, s.gpu_slots, &w.frames, &w.expected,
                            s.features, n, s.connection_per_stream, s.timing};
          CellResult c = RunStreamCell(spec);
          Progress(c);
          cells.push_back(c);
        }
      }
      // Unary latency at the first size only (1080p in the default run), one call at a time.
      if (s.unary && w.frames.geometry.width == s.geometries.front().width &&
          w.frames.geometry.height == s.geometries.front().height) {
        if (backend == v1::BACKEND_GPU && !gpu_ready) {
          cells.push_back(Skipped("unary", name, w.frames.geometry, 1, no_gpu));
          continue;
        }
        GrpcCellSpec spec{target, pid, backend, s.gpu_slots, &w.frames, &w.expected,
                          s.features, 1, true, s.timing};
        CellResult c = RunUnaryCell(spec);
        Progress(c);
        cells.push_back(c);
      }
    }
  }
  if (server) info.emplace_back("server_stop", server->Stop());
}

void WriteFile(const std::string& path, const std::string& text) {
  if (path.empty()) return;
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) std::fprintf(stderr, "cannot write %s\n", path.c_str());
}

int Run(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "ssimd-bench: GPU and CPU throughput side by side (device, engine, gRPC end to end).\n"
      "  ssimd-bench --json_out=bench.json --table_out=bench.txt\n"
      "  ssimd-bench --quick                      # CPU-only smoke run, under a minute");
  std::vector<char*> positional = absl::ParseCommandLine(argc, argv);
  // The client side as the server does it, so that neither pays page faults per frame.
  KeepFrameMemoryInProcess();
  absl::StatusOr<Settings> settings = SettingsFromFlags();
  if (!settings.ok()) {
    std::fprintf(stderr, "ssimd-bench: %s\n", std::string(settings.status().message()).c_str());
    return 2;
  }
  const Settings& s = *settings;
  const absl::Time began = absl::Now();
  std::vector<std::string> args(argv, argv + argc);
  RunInfo info = {
      {"command", absl::StrJoin(args, " ")},
      {"started_utc", absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", began, absl::UTCTimeZone())},
      {"cpu", CpuModel()},
      {"cores", absl::StrCat(std::thread::hardware_concurrency())},
      {"features", FeatureLabel(s.features)},
      {"cell_seconds", absl::StrCat(s.timing.measure_seconds)},
      {"warmup_seconds", absl::StrCat(s.timing.warmup_seconds)},
      {"engine_threads", absl::StrCat(s.engine_threads)},
      {"connection_per_stream", s.connection_per_stream ? "true" : "false"},
  };

  // Pictures and the CPU engine's scores of each (on every core: this is set-up, not a cell).
  const int hw = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  std::unique_ptr<Scorer> reference = MakeCpuScorer(CpuScorerOptions{0});
  std::vector<Workload> work;
  for (const Geometry& g : s.geometries) {
    Workload w;
    w.frames = MakeFrameSet(g, s.frames_per_set, 20240601u, hw);
    absl::StatusOr<std::vector<FrameScores>> expected =
        ReferenceScores(*reference, w.frames, s.features);
    if (!expected.ok()) {
      std::fprintf(stderr, "ssimd-bench: the CPU engine refused %dx%d %d-bit: %s\n", g.width,
                   g.height, g.bit_depth, std::string(expected.status().message()).c_str());
      return 1;
    }
    w.expected = *std::move(expected);
    work.push_back(std::move(w));
  }
  reference.reset();
  // The unit cost of a copy on the ingest path, at the size of the largest pair's plane.
  size_t plane = 0;
  for (const Workload& w : work) plane = std::max(plane, LumaBytes(w.frames.geometry));
  info.emplace_back("host_memcpy_gb_per_second_one_thread",
                    absl::StrFormat("%.2f into a reused buffer, %.2f into a fresh allocation "
                                    "(%zu-byte plane)",
                                    HostCopyGbPerSecond(plane, 5, false),
                                    HostCopyGbPerSecond(plane, 5, true), plane));
  std::fprintf(stderr, "ssimd-bench: %zu geometries ready in %.1f s\n", work.size(),
               absl::ToDoubleSeconds(absl::Now() - began));

  std::vector<CellResult> cells;
  RunEngineSections(s, work, info, cells);
  if (s.e2e || s.unary) RunGrpcSections(s, work, info, cells);
  info.emplace_back("elapsed_seconds", absl::StrFormat("%.1f", absl::ToDoubleSeconds(
                                                                   absl::Now() - began)));

  const std::vector<Ratio> ratios = GpuCpuRatios(cells);
  const std::vector<TargetCheck> targets =
      CheckTargets(cells, absl::GetFlag(FLAGS_pinned_gb_per_second) / 2);
  const std::string table = ToTable(info, cells, ratios, targets);
  std::fputs(table.c_str(), stdout);
  WriteFile(absl::GetFlag(FLAGS_json_out), ToJson(info, cells, ratios, targets));
  WriteFile(absl::GetFlag(FLAGS_table_out), table);

  // Failure means the benchmark itself went wrong (a failed cell, a score off the CPU's);
  // missed targets and skipped cells are results, reported above.
  int failed = 0;
  for (const CellResult& c : cells) {
    if ((!c.skipped && !c.error.empty()) || c.check.mismatched > 0 ||
        (!c.skipped && c.pairs == 0)) {
      ++failed;
    }
  }
  if (failed > 0) std::fprintf(stderr, "ssimd-bench: %d cell(s) failed\n", failed);
  (void)positional;
  return failed > 0 ? 1 : 0;
}

}  // namespace
}  // namespace ssimd::bench

int main(int argc, char** argv) { return ssimd::bench::Run(argc, argv); }
