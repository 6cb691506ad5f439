#include "server/server_flags.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "base/status_macros.h"
#include "server/url_source.h"

ABSL_FLAG(std::string, address, "127.0.0.1:50051",
          "gRPC listening address, host:port (port 0 picks a free port). Use 0.0.0.0:PORT or "
          "[::]:PORT to listen on every interface.");
ABSL_FLAG(std::string, metrics_address, "127.0.0.1:9090",
          "Prometheus /metrics over HTTP, host:port; empty turns it off.");
ABSL_FLAG(std::string, backend, "auto",
          "auto: the GPU where it can serve a request, else the CPU (and the response says why); "
          "gpu: GPU only, no CPU fallback (health is NOT_SERVING without a usable GPU); cpu: never "
          "use a GPU.");
ABSL_FLAG(int, workers, 0,
          "Threads that score frames (frames scored at once across all streams); 0 = one per "
          "hardware thread.");
ABSL_FLAG(int, cpu_threads, 1,
          "Threads the CPU backend uses inside one frame; 0 = one per hardware thread. Scores do "
          "not depend on it.");
ABSL_FLAG(int, gpu_streams_per_device, 4, "Stream slots per GPU (frames one GPU works on at once).");
ABSL_FLAG(bool, gpu_vmaf, true,
          "Compute vmaf's adm, vif and motion on the GPU (the same bits as the CPU). "
          "--gpu_vmaf=false keeps vmaf frames on the CPU, with the reason logged and counted.");
ABSL_FLAG(std::vector<std::string>, gpu_devices, {},
          "Comma-separated GPU indices to use; empty = every device found.");
ABSL_FLAG(int, max_concurrent_streams, 64,
          "Streams (ScoreClip, ScoreFiles, ScoreLadder, UploadFile) open at once; more get "
          "RESOURCE_EXHAUSTED.");
ABSL_FLAG(int, max_frames_in_flight, 4,
          "Frames of one stream read but not yet answered; the stream is not read further until "
          "one is answered (backpressure).");
ABSL_FLAG(int, max_pending_pairs, 64,
          "ScorePair calls queued or being scored at once; more get RESOURCE_EXHAUSTED.");
ABSL_FLAG(int64_t, max_message_bytes, ssimd::kDefaultMaxMessageBytes,
          "Largest request message in bytes. The default fits an 8K (8192x4320) 16-bit luma pair.");
ABSL_FLAG(std::string, files_root, "",
          "Directory whose files ScoreFiles and ScoreLadder inputs may name by path; empty: no "
          "paths (uploads and URLs still work where they are turned on).");
ABSL_FLAG(std::string, upload_dir, "",
          "Directory UploadFile stores client files in, named later as \"upload:<id>\" inputs of "
          "ScoreFiles and ScoreLadder; empty turns uploads off. Files an earlier run left there "
          "are removed at start.");
ABSL_FLAG(int64_t, max_upload_bytes, int64_t{1} << 30,
          "Largest file one UploadFile call may store, in bytes; a larger one gets "
          "RESOURCE_EXHAUSTED and nothing is kept.");
ABSL_FLAG(int64_t, max_upload_total_bytes, int64_t{8} << 30,
          "Bytes all stored and incoming uploads may take together in --upload_dir; an upload "
          "that would pass it gets RESOURCE_EXHAUSTED.");
ABSL_FLAG(absl::Duration, upload_ttl, absl::Hours(1),
          "How long an upload is kept after it is stored; later its id is NOT_FOUND.");
ABSL_FLAG(std::vector<std::string>, allow_url_prefix, {},
          "Comma-separated http(s) URL prefixes (scheme, host, optional port, path) that "
          "ScoreFiles and ScoreLadder inputs may be fetched from, redirects included; empty: no "
          "URL is fetched (PERMISSION_DENIED).");
ABSL_FLAG(int64_t, max_url_bytes, int64_t{1} << 30,
          "Largest body fetched for one URL input, in bytes (held in memory while it is read); a "
          "larger one gets RESOURCE_EXHAUSTED.");
ABSL_FLAG(absl::Duration, url_timeout, absl::Minutes(5),
          "Longest time one URL input may take to fetch, redirects included; then "
          "DEADLINE_EXCEEDED.");
ABSL_FLAG(absl::Duration, url_call_timeout, absl::Minutes(10),
          "Longest time the URL inputs of one ScoreFiles or ScoreLadder call may take to fetch "
          "all together (each fetch also within --url_timeout); then DEADLINE_EXCEEDED.");
ABSL_FLAG(absl::Duration, url_stall_timeout, absl::Seconds(30),
          "A URL fetch that receives no byte for this long is abandoned (DEADLINE_EXCEEDED).");
ABSL_FLAG(std::vector<std::string>, default_percentiles,
          std::vector<std::string>({"1", "5", "50", "95", "99"}),
          "Percentiles (0-100) of each metric in a clip summary when the request names none.");
ABSL_FLAG(absl::Duration, stream_idle_timeout, absl::Minutes(1),
          "End a ScoreClip/ScoreFiles/UploadFile stream with DEADLINE_EXCEEDED when its client "
          "sends no message and takes no result for this long (frees its slot, removes a partial "
          "upload); 0 turns it off.");
ABSL_FLAG(absl::Duration, grace_period, absl::Seconds(30),
          "On SIGTERM/SIGINT: how long running streams may take to finish before they are "
          "cancelled.");
ABSL_FLAG(absl::Duration, max_connection_age, absl::Minutes(5),
          "Ask a client connection older than this to reconnect (GOAWAY), so long-lived clients "
          "spread over replicas added since; 0 turns it off.");
ABSL_FLAG(absl::Duration, max_connection_age_grace, absl::Hours(1),
          "After --max_connection_age: how long the streams of that connection may still run "
          "before they are cut.");
ABSL_FLAG(absl::Duration, health_poll_interval, absl::Seconds(1),
          "How often backend health (and device metrics) are refreshed.");
ABSL_FLAG(bool, reflection, true, "Serve gRPC server reflection (for grpcurl and similar tools).");
ABSL_FLAG(std::string, tls_cert_file, "", "PEM certificate chain; with --tls_key_file enables TLS.");
ABSL_FLAG(std::string, tls_key_file, "", "PEM private key of --tls_cert_file.");
ABSL_FLAG(std::string, tls_client_ca_file, "",
          "PEM CA bundle; when set, clients must present a certificate signed by it (mTLS).");
ABSL_FLAG(std::string, log_format, "text", "text, or json for one JSON object per line.");
ABSL_FLAG(std::string, log_level, "info", "trace, debug, info, warn, error, critical or off.");
ABSL_FLAG(int, max_titles, 1000, "Per-title score gauges kept in metrics (least recent evicted).");
ABSL_FLAG(std::string, upscale_on_scorer, "auto",
          "Where ScoreLadder upscales renditions: auto (on the GPU that scores them, where a plan "
          "reproduces libswscale's bytes; else libswscale on the CPU), never (always libswscale), "
          "always (with the scoring backend wherever a plan exists, also on the CPU).");
ABSL_FLAG(std::string, hw_decode, "",
          "Decode encoded files on the GPU's video engine: cuda (NVDEC) or vaapi (AMD VCN, "
          "Intel); empty: on the CPU. Streams the engine cannot decode go to the CPU, counted in "
          "ssimd_decode_fallbacks_total.");
ABSL_FLAG(std::string, hw_decode_device, "",
          "The --hw_decode device: a GPU index for cuda, a DRM render node for vaapi; empty for "
          "the default.");
ABSL_FLAG(int, hw_decode_sessions, 16,
          "Decoders open at once on the --hw_decode device; more files decode on the CPU.");
ABSL_FLAG(int, decoders_per_file, 1,
          "Decoders working on one encoded file at once, each taking the next free segment "
          "between the file's split points (H.264 and HEVC IDR pictures, VP9 key frames) when "
          "done with its last, the pictures put back in order: for one file faster than one "
          "decoder (several cores, or several GPU video engines with --hw_decode: each decoder "
          "holds a session). 1 to 16; 1: one decoder per file.");
ABSL_FLAG(bool, decoded_on_device, true,
          "With --hw_decode=cuda, pictures NVDEC decodes for ScoreLadder renditions (and the "
          "source) scored on the GPU stay in device memory and are read there, without a trip "
          "through the host; false brings every picture to the host first.");
ABSL_FLAG(int64_t, max_picture_pixels, ssimd::kDefaultMaxPicturePixels,
          "Largest picture, in pixels (width x height), a ScoreFiles or ScoreLadder input may "
          "have; checked on the size the file declares before anything is decoded, and larger "
          "inputs get RESOURCE_EXHAUSTED. The default, 8192x4352, takes every 8K format.");
ABSL_FLAG(std::string, decoded_memory_budget, "",
          "Bytes of decoded and scaled pictures all ScoreFiles and ScoreLadder inputs may hold "
          "at once, e.g. 4G, 512M or 1073741824. Each input reserves what it may hold before its "
          "first frame is decoded; one that cannot fit gets RESOURCE_EXHAUSTED at once, one that "
          "cannot fit now waits up to --decoded_memory_wait. Empty: half of the memory limit "
          "(the cgroup's memory.max, else physical memory), at most 4G.");
ABSL_FLAG(absl::Duration, decoded_memory_wait, absl::Seconds(30),
          "Longest an input waits for other calls to give back decoded-picture memory before "
          "its call gets RESOURCE_EXHAUSTED; 0: never waits.");
ABSL_FLAG(std::string, vmaf_model_dir, ssimd::kDefaultVmafModelDir,
          "Directory of libvmaf's VMAF model files (vmaf_v0.6.1.json, ...), read at start-up; "
          "the vmaf feature's model option names one by its file name without .json. Where the "
          "default directory does not exist the server starts without models and refuses vmaf.");
ABSL_FLAG(int, max_renditions_per_title, 16,
          "Renditions of a title's scored ladder kept in metrics (least recent evicted); the "
          "ladders' titles are capped by --max_titles.");

namespace ssimd {
namespace {

absl::Status BadFlag(const char* flag, const std::string& message) {
  return absl::InvalidArgumentError(absl::StrCat("--", flag, ": ", message));
}

// The VMAF models. A directory named on the command line must be readable; the default one may be
// missing (a server without models serves everything but vmaf, and says so when asked).
absl::Status ReadVmafModels(ServiceOptions& service, std::vector<std::string>& skipped) {
  const std::string dir = absl::GetFlag(FLAGS_vmaf_model_dir);
  if (dir.empty()) return absl::OkStatus();
  absl::StatusOr<VmafModelRegistry> models = VmafModelRegistry::LoadDirectory(dir, &skipped);
  if (!models.ok()) {
    if (dir == kDefaultVmafModelDir && absl::IsNotFound(models.status())) return absl::OkStatus();
    return BadFlag("vmaf_model_dir", std::string(models.status().message()));
  }
  service.vmaf_models = std::make_shared<const VmafModelRegistry>(*std::move(models));
  return absl::OkStatus();
}

// Uploads and URL inputs (docs/adr/0078). The directory and the prefixes themselves are checked
// when the server starts (UploadSpool::Create, UrlSource::Create), with messages naming the flags.
absl::Status ReadInputFlags(ServerOptions& server) {
  UploadSpoolOptions& uploads = server.uploads;
  uploads.dir = absl::GetFlag(FLAGS_upload_dir);
  uploads.max_upload_bytes = absl::GetFlag(FLAGS_max_upload_bytes);
  uploads.max_total_bytes = absl::GetFlag(FLAGS_max_upload_total_bytes);
  uploads.ttl = absl::GetFlag(FLAGS_upload_ttl);
  if (uploads.max_upload_bytes < 1) return BadFlag("max_upload_bytes", "expected 1 or more");
  if (uploads.max_total_bytes < uploads.max_upload_bytes) {
    return BadFlag("max_upload_total_bytes",
                   absl::StrCat("expected at least --max_upload_bytes (",
                                uploads.max_upload_bytes, "), got ", uploads.max_total_bytes));
  }
  if (uploads.ttl <= absl::ZeroDuration()) {
    return BadFlag("upload_ttl", "expected a positive duration, e.g. 1h");
  }
  UrlSourceOptions& urls = server.urls;
  urls.allowed_prefixes.clear();
  for (const std::string& prefix : absl::GetFlag(FLAGS_allow_url_prefix)) {
    if (prefix.empty()) continue;  // "--allow_url_prefix=" is the empty list
    if (!LooksLikeUrl(prefix)) {
      return BadFlag("allow_url_prefix",
                     absl::StrCat("expected comma-separated http:// or https:// URL prefixes, "
                                  "got \"", prefix, "\""));
    }
    urls.allowed_prefixes.push_back(prefix);
  }
  urls.max_bytes = absl::GetFlag(FLAGS_max_url_bytes);
  if (urls.max_bytes < 1) return BadFlag("max_url_bytes", "expected 1 or more");
  urls.total_timeout = absl::GetFlag(FLAGS_url_timeout);
  if (urls.total_timeout <= absl::ZeroDuration()) {
    return BadFlag("url_timeout", "expected a positive duration, e.g. 5m");
  }
  urls.call_timeout = absl::GetFlag(FLAGS_url_call_timeout);
  if (urls.call_timeout <= absl::ZeroDuration()) {
    return BadFlag("url_call_timeout", "expected a positive duration, e.g. 10m");
  }
  urls.stall_timeout = absl::GetFlag(FLAGS_url_stall_timeout);
  if (urls.stall_timeout < absl::Seconds(1)) {
    return BadFlag("url_stall_timeout", "expected 1s or more");
  }
  return absl::OkStatus();
}

// The per-picture limit and the decoded-picture budget (docs/adr/0084).
absl::Status ReadDecodedMemoryFlags(ServiceOptions& service) {
  service.max_picture_pixels = absl::GetFlag(FLAGS_max_picture_pixels);
  if (service.max_picture_pixels < 1 || service.max_picture_pixels > kMaxPixels) {
    return BadFlag("max_picture_pixels",
                   absl::StrCat("expected 1 to ", kMaxPixels, " (16384x16384), got ",
                                service.max_picture_pixels));
  }
  const std::string budget = absl::GetFlag(FLAGS_decoded_memory_budget);
  if (budget.empty()) {
    service.decoded_memory_budget_bytes =
        DefaultDecodedMemoryBudget(CgroupMemoryLimit(), PhysicalMemoryBytes());
  } else {
    absl::StatusOr<int64_t> bytes = ParseByteSize(budget);
    if (!bytes.ok()) return BadFlag("decoded_memory_budget", std::string(bytes.status().message()));
    if (*bytes < kMinDecodedMemoryBudget) {
      return BadFlag("decoded_memory_budget",
                     absl::StrCat("expected at least 64M (one decoder's working state), got ",
                                  budget));
    }
    service.decoded_memory_budget_bytes = *bytes;
  }
  service.decoded_memory_wait = absl::GetFlag(FLAGS_decoded_memory_wait);
  if (service.decoded_memory_wait < absl::ZeroDuration()) {
    return BadFlag("decoded_memory_wait", "must not be negative (0 never waits)");
  }
  return absl::OkStatus();
}

// The first line of a small file under /sys, or empty.
std::string ReadSysLine(const std::string& path) {
  std::ifstream file(path);
  std::string line;
  if (!file || !std::getline(file, line)) return "";
  return std::string(absl::StripAsciiWhitespace(line));
}

}  // namespace

absl::StatusOr<int64_t> ParseByteSize(absl::string_view text) {
  const std::string lower = absl::AsciiStrToLower(absl::StripAsciiWhitespace(text));
  absl::string_view number = lower;
  // Units are binary, as memory limits are: 4G, 4Gi, 4GiB and 4GB all mean 4 GiB.
  if (!absl::ConsumeSuffix(&number, "ib") && !absl::ConsumeSuffix(&number, "b")) {
    absl::ConsumeSuffix(&number, "i");
  }
  int shift = 0;
  if (!number.empty()) {
    switch (number.back()) {
      case 'k': shift = 10; break;
      case 'm': shift = 20; break;
      case 'g': shift = 30; break;
      case 't': shift = 40; break;
      default: break;
    }
  }
  if (shift > 0) number.remove_suffix(1);
  int64_t bytes = 0;
  double value = 0;
  if (shift == 0) {
    if (absl::SimpleAtoi(number, &bytes) && bytes > 0) return bytes;
  } else if (absl::SimpleAtod(number, &value) && value > 0 &&
             value < std::ldexp(1.0, 62 - shift)) {
    bytes = static_cast<int64_t>(std::llround(std::ldexp(value, shift)));
    if (bytes > 0) return bytes;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "expected a positive size in bytes, optionally with a K, M, G or T suffix (e.g. 4G, 512M), "
      "got \"", text, "\""));
}

std::optional<int64_t> CgroupMemoryLimit(const std::string& cgroup_root) {
  // cgroup v2: "max" when unlimited.
  const std::string v2 = ReadSysLine(cgroup_root + "/memory.max");
  int64_t bytes = 0;
  if (!v2.empty()) {
    if (v2 != "max" && absl::SimpleAtoi(v2, &bytes) && bytes > 0) return bytes;
    return std::nullopt;
  }
  // cgroup v1: a huge number (close to 2^63) when unlimited.
  const std::string v1 = ReadSysLine(cgroup_root + "/memory/memory.limit_in_bytes");
  if (absl::SimpleAtoi(v1, &bytes) && bytes > 0 && bytes < (int64_t{1} << 60)) return bytes;
  return std::nullopt;
}

int64_t PhysicalMemoryBytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page_size = ::sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page_size <= 0) return 0;
  return static_cast<int64_t>(pages) * page_size;
}

int64_t DefaultDecodedMemoryBudget(std::optional<int64_t> cgroup_limit, int64_t physical_bytes) {
  int64_t limit = physical_bytes;
  if (cgroup_limit.has_value() && (limit <= 0 || *cgroup_limit < limit)) limit = *cgroup_limit;
  // Nothing known: the cap itself.
  if (limit <= 0) return kDefaultDecodedMemoryBudget;
  // Half leaves the rest for the scorer, gRPC messages, uploads and URL bodies in memory.
  return std::clamp<int64_t>(limit / 2, kMinDecodedMemoryBudget, kDefaultDecodedMemoryBudget);
}

absl::StatusOr<ServerFlags> ServerFlagsFromCommandLine() {
  ServerFlags out;
  ServerOptions& server = out.server;
  server.address = absl::GetFlag(FLAGS_address);
  out.metrics_address = absl::GetFlag(FLAGS_metrics_address);

  const std::string backend = absl::GetFlag(FLAGS_backend);
  if (backend == "auto") {
    server.service.backend_policy = BackendPreference::kAuto;
  } else if (backend == "gpu") {
    server.service.backend_policy = BackendPreference::kGpu;
  } else if (backend == "cpu") {
    server.service.backend_policy = BackendPreference::kCpu;
  } else {
    return BadFlag("backend", absl::StrCat("expected auto, gpu or cpu, got \"", backend, "\""));
  }

  server.workers = absl::GetFlag(FLAGS_workers);
  if (server.workers < 0) return BadFlag("workers", "expected 0 (automatic) or more");
  out.cpu.threads = absl::GetFlag(FLAGS_cpu_threads);
  if (out.cpu.threads < 0) return BadFlag("cpu_threads", "expected 0 (automatic) or more");
  out.gpu.streams_per_device = absl::GetFlag(FLAGS_gpu_streams_per_device);
  out.gpu.vmaf_on_device = absl::GetFlag(FLAGS_gpu_vmaf);
  if (out.gpu.streams_per_device < 1) return BadFlag("gpu_streams_per_device", "expected 1 or more");
  for (const std::string& index : absl::GetFlag(FLAGS_gpu_devices)) {
    int i = 0;
    if (!absl::SimpleAtoi(index, &i) || i < 0) {
      return BadFlag("gpu_devices",
                     absl::StrCat("expected comma-separated device indices, got \"", index, "\""));
    }
    out.gpu.device_indices.push_back(i);
  }

  ServiceOptions& service = server.service;
  service.hw_decode_api = absl::GetFlag(FLAGS_hw_decode);
  if (!service.hw_decode_api.empty() && service.hw_decode_api != "cuda" &&
      service.hw_decode_api != "vaapi") {
    return BadFlag("hw_decode", absl::StrCat("expected cuda, vaapi or nothing, got \"",
                                             service.hw_decode_api, "\""));
  }
  service.hw_decode_device = absl::GetFlag(FLAGS_hw_decode_device);
  service.hw_decode_sessions = absl::GetFlag(FLAGS_hw_decode_sessions);
  if (service.hw_decode_sessions < 1) return BadFlag("hw_decode_sessions", "expected 1 or more");
  service.decoders_per_file = absl::GetFlag(FLAGS_decoders_per_file);
  service.decoded_on_device = absl::GetFlag(FLAGS_decoded_on_device);
  if (service.decoders_per_file < 1 || service.decoders_per_file > 16) {
    return BadFlag("decoders_per_file", "expected 1 to 16");
  }
  const std::string upscale = absl::GetFlag(FLAGS_upscale_on_scorer);
  if (upscale == "auto") {
    service.scorer_upscale = ScorerUpscale::kAuto;
  } else if (upscale == "never") {
    service.scorer_upscale = ScorerUpscale::kNever;
  } else if (upscale == "always") {
    service.scorer_upscale = ScorerUpscale::kAlways;
  } else {
    return BadFlag("upscale_on_scorer",
                   absl::StrCat("expected auto, never or always, got \"", upscale, "\""));
  }
  service.max_concurrent_streams = absl::GetFlag(FLAGS_max_concurrent_streams);
  service.max_frames_in_flight = absl::GetFlag(FLAGS_max_frames_in_flight);
  service.max_pending_pairs = absl::GetFlag(FLAGS_max_pending_pairs);
  service.max_message_bytes = absl::GetFlag(FLAGS_max_message_bytes);
  service.files_root = absl::GetFlag(FLAGS_files_root);
  service.stream_idle_timeout = absl::GetFlag(FLAGS_stream_idle_timeout);
  if (service.stream_idle_timeout < absl::ZeroDuration()) {
    return BadFlag("stream_idle_timeout", "must not be negative (0 turns it off)");
  }
  SSIMD_RETURN_IF_ERROR(ReadInputFlags(server));
  SSIMD_RETURN_IF_ERROR(ReadDecodedMemoryFlags(service));
  SSIMD_RETURN_IF_ERROR(ReadVmafModels(service, out.vmaf_models_skipped));

  service.default_percentiles.clear();
  for (const std::string& text : absl::GetFlag(FLAGS_default_percentiles)) {
    double p = 0;
    if (!absl::SimpleAtod(text, &p) || !(p >= 0 && p <= 100)) {
      return BadFlag("default_percentiles",
                     absl::StrCat("expected numbers from 0 to 100, got \"", text, "\""));
    }
    service.default_percentiles.push_back(p);
  }

  out.grace_period = absl::GetFlag(FLAGS_grace_period);
  if (out.grace_period < absl::ZeroDuration()) return BadFlag("grace_period", "must not be negative");
  server.health_poll_interval = absl::GetFlag(FLAGS_health_poll_interval);
  if (server.health_poll_interval <= absl::ZeroDuration()) {
    return BadFlag("health_poll_interval", "must be positive, e.g. 1s");
  }
  server.max_connection_age = absl::GetFlag(FLAGS_max_connection_age);
  server.max_connection_age_grace = absl::GetFlag(FLAGS_max_connection_age_grace);
  if (server.max_connection_age < absl::ZeroDuration() ||
      server.max_connection_age_grace < absl::ZeroDuration()) {
    return BadFlag("max_connection_age", "durations must not be negative (0 turns it off)");
  }
  server.reflection = absl::GetFlag(FLAGS_reflection);
  server.tls.cert_file = absl::GetFlag(FLAGS_tls_cert_file);
  server.tls.key_file = absl::GetFlag(FLAGS_tls_key_file);
  server.tls.client_ca_file = absl::GetFlag(FLAGS_tls_client_ca_file);

  auto format = ParseLogFormat(absl::GetFlag(FLAGS_log_format));
  if (!format.ok()) return BadFlag("log_format", std::string(format.status().message()));
  out.logging.format = *format;
  out.logging.level = absl::GetFlag(FLAGS_log_level);
  out.metrics.max_titles = absl::GetFlag(FLAGS_max_titles);
  if (out.metrics.max_titles < 0) return BadFlag("max_titles", "expected 0 or more");
  out.metrics.decoded_memory_budget_bytes = service.decoded_memory_budget_bytes;
  out.metrics.max_renditions_per_title = absl::GetFlag(FLAGS_max_renditions_per_title);
  if (out.metrics.max_renditions_per_title < 0) {
    return BadFlag("max_renditions_per_title", "expected 0 or more");
  }
  return out;
}

}  // namespace ssimd
