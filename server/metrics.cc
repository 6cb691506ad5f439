#include "server/metrics.h"

#include <cmath>
#include <exception>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "base/status_macros.h"
#include "engine/feature_table.h"
#include "engine/media/decode_error.h"
#include "prometheus/counter.h"
#include "prometheus/exposer.h"
#include "prometheus/family.h"
#include "prometheus/gauge.h"
#include "prometheus/histogram.h"
#include "prometheus/registry.h"
#include "prometheus/text_serializer.h"
#include "server/logging.h"
#include "server/metric_labels.h"
#include "server/title_gauges.h"

namespace ssimd {
namespace {

// The metrics endpoint's worker threads and how long one waits for a request to arrive.
constexpr int kMetricsHttpThreads = 64;
constexpr absl::Duration kMetricsRequestTimeout = absl::Seconds(2);

using prometheus::Counter;
using prometheus::Family;
using prometheus::Gauge;
using prometheus::Histogram;
using prometheus::Registry;

// From 50 us (one stage of a small GPU frame) to 10 s (a 16K frame on a busy CPU), about 2.5x
// apart: enough resolution for percentiles without a series per microsecond.
const Histogram::BucketBoundaries& LatencyBuckets() {
  static const auto* const kBuckets = new Histogram::BucketBoundaries{
      0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
      0.05,    0.1,    0.25,    0.5,    1,     2.5,    5,     10};
  return *kBuckets;
}

// SSIM of encoded video sits close to 1, so the buckets crowd there.
const Histogram::BucketBoundaries& ScoreBuckets() {
  static const auto* const kBuckets = new Histogram::BucketBoundaries{
      0.5, 0.7, 0.8, 0.85, 0.9, 0.93, 0.95, 0.96, 0.97, 0.98, 0.99, 0.995, 0.998, 0.999, 1};
  return *kBuckets;
}

// enable_db scores: -10*log10(1 - ssim); 10 dB is SSIM 0.9, 30 dB is 0.999.
const Histogram::BucketBoundaries& DecibelBuckets() {
  static const auto* const kBuckets =
      new Histogram::BucketBoundaries{5, 10, 12.5, 15, 17.5, 20, 22.5, 25, 30, 35, 40, 50, 60, 80};
  return *kBuckets;
}

// VMAF: ladders are decided around 80-95, where a step of a few points matters.
const Histogram::BucketBoundaries& VmafBuckets() {
  static const auto* const kBuckets = new Histogram::BucketBoundaries{
      20, 40, 50, 60, 70, 75, 80, 85, 88, 90, 92, 94, 96, 98, 100};
  return *kBuckets;
}

// The histogram a frame score goes to: none for names outside the feature table (so a series
// cannot be made up) and for unbounded values such as mse.
std::optional<OutputScale> ObservedScale(const std::string& name, const FeatureSet& features) {
  const FeatureDescription* feature = FeatureOfMetric(name);
  if (feature == nullptr || !feature->requested(features)) return std::nullopt;
  const OutputScale scale = feature->scale_of(features, name);
  if (scale == OutputScale::kUnbounded) return std::nullopt;
  return scale;
}

template <typename T>
Family<T>& Build(prometheus::detail::Builder<T> builder, Registry& registry, const char* name,
                 const char* help) {
  return builder.Name(name).Help(help).Register(registry);
}

// "host:port" with a port of 0..65535 (0 = any free port); IPv6 hosts in brackets.
absl::Status ValidateAddress(const std::string& address) {
  const size_t colon = address.rfind(':');
  int port = -1;
  if (colon == std::string::npos || colon == 0 ||
      !absl::SimpleAtoi(address.substr(colon + 1), &port) || port < 0 || port > 65535) {
    return absl::InvalidArgumentError(absl::StrCat(
        "metrics address \"", address,
        "\" must be host:port with a port from 0 to 65535, e.g. 0.0.0.0:9090 or 127.0.0.1:0"));
  }
  return absl::OkStatus();
}

}  // namespace

struct ServiceMetrics::Impl {
  explicit Impl(const MetricsOptions& options);

  void RecordStages(const std::string& feature, const std::string& backend,
                    const StageTimings& timings);
  void RecordScores(const FeatureSet& features, const FrameScores& scores);

  std::shared_ptr<Registry> registry = std::make_shared<Registry>();

  Family<Histogram>& stage_seconds;
  Family<Histogram>& frame_seconds;
  Family<Counter>& frames;
  Family<Counter>& fallbacks;
  Family<Counter>& decode_errors;
  Family<Counter>& decode_fallbacks;
  Family<Counter>& decoded_frames;
  Gauge& decode_sessions;
  Gauge& decode_sessions_in_use;
  Family<Gauge>& decode_engine_utilization;
  Gauge& decoded_memory_budget;
  Gauge& decoded_memory_reserved;
  Counter& decoded_memory_waits;
  Family<Counter>& decoded_memory_refusals;
  Family<Counter>& upscales;
  Family<Counter>& upscale_fallbacks;
  Family<Counter>& rpcs;
  Gauge& active_streams;
  Gauge& frames_in_flight;
  Gauge& devices;
  Family<Gauge>& device_up;
  Family<Gauge>& device_slots;
  Family<Gauge>& device_slots_in_use;
  Family<Gauge>& device_memory;
  Family<Counter>& device_frames;
  Family<Counter>& device_ordered_sums;
  Family<Counter>& device_exact_sum_fallbacks;
  Family<Counter>& device_decoded_planes;
  Family<Histogram>& score;
  Family<Histogram>& score_db;
  Family<Histogram>& score_vmaf;
  Family<Gauge>& title_score;
  Counter& title_evictions;
  Gauge& titles_tracked;
  TitleGauges titles;
  LadderGauges ladders;

  // The devices' cumulative counts as last seen, to turn them into counter increments.
  absl::Mutex devices_mu;
  std::map<std::pair<int, std::string>, int64_t> device_counts_seen ABSL_GUARDED_BY(devices_mu);

  mutable absl::Mutex http_mu;
  std::unique_ptr<prometheus::Exposer> exposer ABSL_GUARDED_BY(http_mu);
};

ServiceMetrics::Impl::Impl(const MetricsOptions& options)
    : stage_seconds(Build(prometheus::BuildHistogram(), *registry, "ssimd_frame_stage_seconds",
                          "Seconds one frame spent in a stage: decode and scale (encoded files), "
                          "queue_wait, upload, compute, readback, host_finish (upload and "
                          "readback on GPUs only).")),
      frame_seconds(Build(prometheus::BuildHistogram(), *registry, "ssimd_frame_seconds",
                          "Seconds one frame took in its backend, end to end (the frame's "
                          "timings.total).")),
      frames(Build(prometheus::BuildCounter(), *registry, "ssimd_frames_scored_total",
                   "Frames scored, by requested feature set and backend.")),
      fallbacks(Build(prometheus::BuildCounter(), *registry, "ssimd_fallbacks_total",
                      "Frames scored on the CPU although a GPU was preferred, by feature set and "
                      "reason category; the full reason is logged once per stream.")),
      decode_errors(Build(prometheus::BuildCounter(), *registry, "ssimd_decode_errors_total",
                          "ScoreFiles and ScoreLadder calls that failed on a file that could not "
                          "be decoded, by kind (truncated, corrupt_stream, unsupported_codec, ...); "
                          "the message names the file and frame.")),
      decode_fallbacks(Build(prometheus::BuildCounter(), *registry,
                             "ssimd_decode_fallbacks_total",
                             "Encoded files meant for the GPU's video engine (--hw_decode) that "
                             "were decoded on the CPU, by reason (no_device, codec, format, "
                             "sessions_busy, engine_limits, engine_refused).")),
      decoded_frames(Build(prometheus::BuildCounter(), *registry, "ssimd_decoded_frames_total",
                           "Frames of encoded files decoded, by backend: cpu, nvdec or vaapi.")),
      decode_sessions(Build(prometheus::BuildGauge(), *registry, "ssimd_decode_sessions",
                            "Decoder sessions the GPU's video engine may have open at once "
                            "(--hw_decode_sessions); 0 without --hw_decode.")
                          .Add({})),
      decode_sessions_in_use(Build(prometheus::BuildGauge(), *registry,
                                   "ssimd_decode_sessions_in_use",
                                   "Decoder sessions open on the GPU's video engine now.")
                                 .Add({})),
      decode_engine_utilization(Build(prometheus::BuildGauge(), *registry,
                                      "ssimd_decode_engine_utilization_ratio",
                                      "Share of the driver's last sampling period during which "
                                      "the GPU's video decoders worked (NVDEC, through NVML).")),
      decoded_memory_budget(
          Build(prometheus::BuildGauge(), *registry, "ssimd_decoded_memory_budget_bytes",
                "Bytes of decoded and scaled pictures all ScoreFiles and ScoreLadder inputs may "
                "hold at once (--decoded_memory_budget).")
              .Add({})),
      decoded_memory_reserved(
          Build(prometheus::BuildGauge(), *registry, "ssimd_decoded_memory_reserved_bytes",
                "Bytes of the decoded-picture budget the open inputs reserved now.")
              .Add({})),
      decoded_memory_waits(
          Build(prometheus::BuildCounter(), *registry, "ssimd_decoded_memory_waits_total",
                "Inputs that waited for other calls to give back decoded-picture memory, "
                "whatever came of it.")
              .Add({})),
      decoded_memory_refusals(Build(
          prometheus::BuildCounter(), *registry, "ssimd_decoded_memory_refusals_total",
          "Inputs refused with RESOURCE_EXHAUSTED for their pictures' memory, by reason: "
          "picture_pixels (over --max_picture_pixels), over_budget (more than the whole "
          "--decoded_memory_budget) or wait_timeout (no room within --decoded_memory_wait).")),
      upscales(Build(prometheus::BuildCounter(), *registry, "ssimd_upscales_total",
                     "ScoreLadder renditions upscaled to their source, by where: scorer (the "
                     "scoring backend applied libswscale's filters) or libswscale (on the CPU).")),
      upscale_fallbacks(Build(prometheus::BuildCounter(), *registry,
                              "ssimd_upscale_fallbacks_total",
                              "Upscales left to libswscale on the CPU although the scoring GPU "
                              "would have taken them, by reason (format, scaler, geometry, "
                              "mismatch, error; frame: one picture its rendition's plan did not "
                              "fit); the message is logged.")),
      rpcs(Build(prometheus::BuildCounter(), *registry, "ssimd_rpcs_total",
                 "Finished RPCs, by method and gRPC status code.")),
      active_streams(Build(prometheus::BuildGauge(), *registry, "ssimd_active_streams",
                           "Scoring streams open now.")
                         .Add({})),
      frames_in_flight(Build(prometheus::BuildGauge(), *registry, "ssimd_frames_in_flight",
                             "Frames received and not yet answered.")
                           .Add({})),
      devices(Build(prometheus::BuildGauge(), *registry, "ssimd_devices",
                    "GPU devices usable now (0 when the service runs on the CPU only).")
                  .Add({})),
      device_up(Build(prometheus::BuildGauge(), *registry, "ssimd_device_up",
                      "1 while a GPU device serves, 0 once it is lost.")),
      device_slots(Build(prometheus::BuildGauge(), *registry, "ssimd_device_slots",
                         "Stream slots of a GPU device (frames it can hold at once).")),
      device_slots_in_use(Build(prometheus::BuildGauge(), *registry,
                                "ssimd_device_slots_in_use",
                                "Stream slots of a GPU device leased now.")),
      device_memory(Build(prometheus::BuildGauge(), *registry, "ssimd_device_memory_used_bytes",
                          "Device memory ssimd holds on a GPU, in bytes.")),
      device_frames(Build(prometheus::BuildCounter(), *registry, "ssimd_device_frames_total",
                          "Frames scored on each GPU device.")),
      device_ordered_sums(Build(prometheus::BuildCounter(), *registry,
                                "ssimd_device_ordered_sums_total",
                                "Frames whose mean a GPU left to the host to sum in libvmaf's "
                                "order (to stay bit-exact), by device and feature.")),
      device_exact_sum_fallbacks(
          Build(prometheus::BuildCounter(), *registry, "ssimd_device_exact_sum_fallbacks_total",
                "Frames whose exact ssim sum a GPU could not finish itself and left to the "
                "host's serial sum, by device and reason (serial_budget, check_failed).")),
      device_decoded_planes(
          Build(prometheus::BuildCounter(), *registry, "ssimd_device_decoded_planes_total",
                "Luma planes a GPU's video engine decoded into device memory, by the scoring "
                "device and path: read_on_device (where the engine left them) or through_host "
                "(they lay on another device).")),
      score(Build(prometheus::BuildHistogram(), *registry, "ssimd_frame_score",
                  "Per-frame scores (SSIM, unitless) by metric name.")),
      score_db(Build(prometheus::BuildHistogram(), *registry, "ssimd_frame_score_decibels",
                     "Per-frame scores requested in dB (enable_db), by metric name; infinite "
                     "scores are not observed.")),
      score_vmaf(Build(prometheus::BuildHistogram(), *registry, "ssimd_frame_score_vmaf",
                       "Per-frame VMAF scores (0 to 100), by metric name.")),
      title_score(Build(prometheus::BuildGauge(), *registry, "ssimd_title_score",
                        "Latest pooled (mean) score of a title, by metric name; only the most "
                        "recently updated titles are kept (option max_titles).")),
      title_evictions(Build(prometheus::BuildCounter(), *registry,
                            "ssimd_title_evictions_total",
                            "Titles dropped from ssimd_title_score to keep the title cap.")
                          .Add({})),
      titles_tracked(Build(prometheus::BuildGauge(), *registry, "ssimd_titles_tracked",
                           "Titles held in ssimd_title_score now.")
                         .Add({})),
      titles(title_score, title_evictions, titles_tracked, options.max_titles),
      ladders(
          LadderFamilies{
              Build(prometheus::BuildGauge(), *registry, "ssimd_rendition_score",
                    "Pooled score of a rendition in its title's latest scored ladder, by metric "
                    "name and pool (mean, harmonic_mean, p5); only the most recently scored "
                    "titles and renditions are kept (options max_titles, "
                    "max_renditions_per_title)."),
              Build(prometheus::BuildGauge(), *registry,
                    "ssimd_rendition_bytes_per_second",
                    "Average bitrate of a scored rendition's file in bytes per second (Prometheus's "
                    "base unit; times 8 is RenditionSummary.bitrate_bits_per_second): its size "
                    "over its duration, 0 when the duration is unknown."),
              Build(prometheus::BuildGauge(), *registry, "ssimd_rendition_size_bytes",
                    "Size of a scored rendition's file in bytes."),
              Build(prometheus::BuildGauge(), *registry, "ssimd_rendition_info",
                    "Always 1: a scored rendition's codec and its own width and height (before "
                    "upscaling), as labels."),
              Build(prometheus::BuildCounter(), *registry, "ssimd_ladder_evictions_total",
                    "Ladder series dropped to keep the caps, by reason: title_cap (a whole "
                    "title's ladder) or rendition_cap (one rendition of a title)."),
              Build(prometheus::BuildGauge(), *registry, "ssimd_ladder_titles_tracked",
                    "Titles whose ladder is held in the ssimd_rendition_* series now.")
                  .Add({}),
              Build(prometheus::BuildGauge(), *registry, "ssimd_ladder_renditions_tracked",
                    "Renditions held in the ssimd_rendition_* series now, all titles.")
                  .Add({})},
          options.max_titles, options.max_renditions_per_title) {
  decoded_memory_budget.Set(static_cast<double>(options.decoded_memory_budget_bytes));
  // Every reason's series from the start, so that rate() sees the first refusal.
  for (const char* reason : {"picture_pixels", "over_budget", "wait_timeout"}) {
    decoded_memory_refusals.Add({{"reason", reason}});
  }
}

void ServiceMetrics::Impl::RecordStages(const std::string& feature, const std::string& backend,
                                        const StageTimings& timings) {
  const bool gpu = backend == "gpu";
  const std::pair<const char*, double> stages[] = {
      {"queue_wait", timings.queue_wait}, {"upload", timings.upload},
      {"compute", timings.compute},       {"readback", timings.readback},
      {"host_finish", timings.host_finish},
  };
  for (const auto& [stage, seconds] : stages) {
    // The CPU has no transfers: zeros there would only drag the GPU stages' percentiles down.
    const bool transfer = std::string_view(stage) == "upload" ||
                          std::string_view(stage) == "readback";
    if (transfer && !gpu) continue;
    stage_seconds.Add({{"stage", stage}, {"feature", feature}, {"backend", backend}},
                      LatencyBuckets())
        .Observe(seconds);
  }
  frame_seconds.Add({{"feature", feature}, {"backend", backend}}, LatencyBuckets())
      .Observe(timings.total);
}

void ServiceMetrics::Impl::RecordScores(const FeatureSet& features, const FrameScores& scores) {
  for (const auto& [name, value] : scores) {
    // NaN (tiny frames) and +inf (dB of a perfect match) have no bucket and would poison _sum.
    const std::optional<OutputScale> scale = ObservedScale(name, features);
    if (!scale.has_value() || !std::isfinite(value)) continue;
    if (*scale == OutputScale::kDecibels) {
      score_db.Add({{"feature", name}}, DecibelBuckets()).Observe(value);
    } else if (*scale == OutputScale::kVmafScore) {
      score_vmaf.Add({{"feature", name}}, VmafBuckets()).Observe(value);
    } else {
      score.Add({{"feature", name}}, ScoreBuckets()).Observe(value);
    }
  }
}

ServiceMetrics::ServiceMetrics(const MetricsOptions& options)
    : impl_(std::make_unique<Impl>(options)) {}

ServiceMetrics::~ServiceMetrics() {
  // Stop serving before the families an in-progress scrape may be reading go away.
  absl::MutexLock lock(&impl_->http_mu);
  impl_->exposer.reset();
}

absl::Status ServiceMetrics::StartHttp(const std::string& address) {
  SSIMD_RETURN_IF_ERROR(ValidateAddress(address));
  absl::MutexLock lock(&impl_->http_mu);
  if (impl_->exposer) {
    return absl::FailedPreconditionError("metrics are already served over HTTP");
  }
  try {
    // civetweb gives each connection a worker thread until its request has arrived, and waits
    // 30 s for one by default: two idle connections used to starve the scrapes of a 2-thread
    // server. Enough threads for many idle or slow peers at once, and a short wait for a request,
    // keep /metrics answering (tests/hardening).
    auto exposer = std::make_unique<prometheus::Exposer>(std::vector<std::string>{
        "listening_ports", address,
        "num_threads", absl::StrCat(kMetricsHttpThreads),
        "request_timeout_ms", absl::StrCat(absl::ToInt64Milliseconds(kMetricsRequestTimeout)),
        "keep_alive_timeout_ms", "500",
        "enable_keep_alive", "yes"});
    exposer->RegisterCollectable(impl_->registry);
    impl_->exposer = std::move(exposer);
  } catch (const std::exception& e) {
    return absl::UnavailableError(absl::StrCat("cannot serve metrics on ", address, ": ",
                                               e.what(),
                                               " (is another process using the port?)"));
  }
  return absl::OkStatus();
}

int ServiceMetrics::HttpPort() const {
  absl::MutexLock lock(&impl_->http_mu);
  if (!impl_->exposer) return 0;
  const std::vector<int> ports = impl_->exposer->GetListeningPorts();
  return ports.empty() ? 0 : ports.front();
}

void ServiceMetrics::RecordFrame(const FeatureSet& features, const ScoreResult& result) {
  const std::string feature = FeatureSetLabel(features);
  const BackendLabel backend = ParseBackendLabel(result.backend);
  impl_->frames.Add({{"feature", feature}, {"backend", backend.backend}}).Increment();
  if (!backend.device.empty()) {
    impl_->device_frames.Add({{"device", backend.device}}).Increment();
  }
  if (!result.fallback_reason.empty()) {
    impl_->fallbacks
        .Add({{"feature", feature}, {"reason", FallbackReasonLabel(result.fallback_reason)}})
        .Increment();
  }
  impl_->RecordStages(feature, backend.backend, result.timings);
  impl_->RecordScores(features, result.scores);
}

void ServiceMetrics::RecordScores(const FeatureSet& features, const FrameScores& scores) {
  impl_->RecordScores(features, scores);
}

void ServiceMetrics::RecordInputStages(const FeatureSet& features,
                                       std::optional<double> decode_seconds,
                                       std::optional<double> scale_seconds) {
  if (!decode_seconds.has_value() && !scale_seconds.has_value()) return;  // a raw file's frame
  const std::string feature = FeatureSetLabel(features);
  const std::pair<const char*, std::optional<double>> stages[] = {{"decode", decode_seconds},
                                                                   {"scale", scale_seconds}};
  for (const auto& [stage, seconds] : stages) {
    if (!seconds.has_value()) continue;
    impl_->stage_seconds.Add({{"stage", stage}, {"feature", feature}, {"backend", "cpu"}},
                             LatencyBuckets())
        .Observe(*seconds);
  }
}

void ServiceMetrics::RecordDecodeError(const absl::Status& status) {
  const std::optional<std::string> kind = DecodeErrorLabelOf(status);
  if (kind.has_value()) impl_->decode_errors.Add({{"kind", *kind}}).Increment();
}

void ServiceMetrics::RecordDecodeFallback(std::string_view reason) {
  static constexpr std::string_view kReasons[] = {"no_device",     "codec",         "format",
                                                  "sessions_busy", "engine_limits", "engine_refused"};
  for (std::string_view known : kReasons) {
    if (reason == known) impl_->decode_fallbacks.Add({{"reason", std::string(known)}}).Increment();
  }
}

void ServiceMetrics::RecordDecodedFrame(std::string_view backend) {
  const std::string label = backend == "nvdec" || backend == "vaapi" ? std::string(backend) : "cpu";
  impl_->decoded_frames.Add({{"backend", label}}).Increment();
}

void ServiceMetrics::SetDecodedMemoryBudget(int64_t bytes) {
  impl_->decoded_memory_budget.Set(static_cast<double>(bytes));
}

void ServiceMetrics::UpdateDecodedMemoryReserved(int64_t bytes) {
  impl_->decoded_memory_reserved.Set(static_cast<double>(bytes));
}

void ServiceMetrics::RecordDecodedMemoryWait() { impl_->decoded_memory_waits.Increment(); }

void ServiceMetrics::RecordDecodedMemoryRefusal(std::string_view reason) {
  if (reason == "picture_pixels" || reason == "over_budget" || reason == "wait_timeout") {
    impl_->decoded_memory_refusals.Add({{"reason", std::string(reason)}}).Increment();
  }
}

void ServiceMetrics::UpdateDecodeSessions(int in_use, int total) {
  impl_->decode_sessions.Set(total);
  impl_->decode_sessions_in_use.Set(in_use);
}

void ServiceMetrics::UpdateDecodeEngineUtilization(double ratio) {
  impl_->decode_engine_utilization.Add({}).Set(ratio);
}

void ServiceMetrics::RecordUpscale(std::string_view where) {
  impl_->upscales.Add({{"where", where == "scorer" ? "scorer" : "libswscale"}}).Increment();
}

void ServiceMetrics::RecordUpscaleFallback(std::string_view reason) {
  static constexpr std::string_view kReasons[] = {"format", "scaler", "geometry",
                                                  "mismatch", "error", "frame"};
  std::string label = "error";
  for (std::string_view known : kReasons) {
    if (reason == known) label = std::string(known);
  }
  impl_->upscale_fallbacks.Add({{"reason", label}}).Increment();
}

void ServiceMetrics::RecordRpc(std::string_view method, std::string_view status_code) {
  impl_->rpcs.Add({{"method", MethodLabel(method)}, {"code", StatusCodeLabel(status_code)}})
      .Increment();
}

void ServiceMetrics::StreamStarted() { impl_->active_streams.Increment(); }

void ServiceMetrics::StreamFinished() { impl_->active_streams.Decrement(); }

void ServiceMetrics::FramesInFlightChanged(int delta) {
  impl_->frames_in_flight.Increment(static_cast<double>(delta));
}

void ServiceMetrics::RecordTitleScore(const std::string& title, const std::string& feature,
                                      double score) {
  impl_->titles.Set(title, feature, score);
}

void ServiceMetrics::RecordRendition(const RenditionRecord& record) {
  impl_->ladders.Set(record);
}

void ServiceMetrics::UpdateDevices(const std::vector<DeviceStats>& devices) {
  int usable = 0;
  absl::MutexLock lock(&impl_->devices_mu);
  for (const DeviceStats& device : devices) {
    const std::string index = std::to_string(device.index);
    const prometheus::Labels labels = {{"device", index}};
    impl_->device_up.Add(labels).Set(device.lost ? 0 : 1);
    impl_->device_slots.Add(labels).Set(device.slots_total);
    impl_->device_slots_in_use.Add(labels).Set(device.slots_in_use);
    impl_->device_memory.Add(labels).Set(static_cast<double>(device.memory_in_use_bytes));
    if (!device.lost) ++usable;
    // The device's count since the last update, under `key`. A count that went down belongs to
    // a re-created device: count it from zero again.
    const auto increase = [&](const std::string& key, int64_t count) {
      int64_t& seen = impl_->device_counts_seen[{device.index, key}];
      const int64_t increment = count >= seen ? count - seen : count;
      seen = count;
      return increment;
    };
    const std::pair<const char*, int64_t> ordered[] = {
        {"float_ssim", device.float_ssim_ordered_sums},
        {"ssim", device.ssim_ordered_sums},
        {"float_ms_ssim", device.float_ms_ssim_ordered_sums}};
    for (const auto& [feature, count] : ordered) {
      const int64_t increment = increase(feature, count);
      if (increment > 0) {
        impl_->device_ordered_sums.Add({{"device", index}, {"feature", feature}})
            .Increment(static_cast<double>(increment));
      }
    }
    const std::pair<const char*, int64_t> exact_fallbacks[] = {
        {"serial_budget", device.ssim_exact_fallbacks_serial_budget},
        {"check_failed", device.ssim_exact_fallbacks_check_failed}};
    for (const auto& [reason, count] : exact_fallbacks) {
      const int64_t increment = increase(absl::StrCat("exact:", reason), count);
      if (increment > 0) {
        impl_->device_exact_sum_fallbacks.Add({{"device", index}, {"reason", reason}})
            .Increment(static_cast<double>(increment));
        LogEvent(spdlog::level::warn, "ssim exact frame sum fell back to the host's serial sum",
                 {{"device", index}, {"reason", reason}, {"frames", std::to_string(increment)}});
      }
    }
    const std::pair<const char*, int64_t> decoded_planes[] = {
        {"read_on_device", device.planes_read_on_device},
        {"through_host", device.device_planes_through_host}};
    for (const auto& [path, count] : decoded_planes) {
      const int64_t increment = increase(absl::StrCat("planes:", path), count);
      if (increment > 0) {
        impl_->device_decoded_planes.Add({{"device", index}, {"path", path}})
            .Increment(static_cast<double>(increment));
      }
    }
  }
  impl_->devices.Set(usable);
}

std::string ServiceMetrics::Serialize() const {
  return prometheus::TextSerializer().Serialize(impl_->registry->Collect());
}

}  // namespace ssimd
