// Prometheus metrics of the service (prometheus-cpp; served on /metrics over HTTP).
// Names follow Prometheus conventions: ssimd_ prefix, _total counters, _seconds histograms.
#ifndef SSIMD_SERVER_METRICS_H_
#define SSIMD_SERVER_METRICS_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "engine/features.h"
#include "engine/scorer.h"
#include "server/ladder_gauges.h"

namespace ssimd {

struct MetricsOptions {
  int max_titles = 1000;  // per-title gauges kept; the least recently updated are evicted
  // Per-rendition gauges kept for each title's ladder (titles capped by max_titles as well).
  int max_renditions_per_title = 16;
  // ssimd_decoded_memory_budget_bytes from the start (--decoded_memory_budget).
  int64_t decoded_memory_budget_bytes = 0;
};

class ServiceMetrics {
 public:
  explicit ServiceMetrics(const MetricsOptions& options = {});
  ~ServiceMetrics();

  // Serves /metrics on `address` ("0.0.0.0:9090"); INVALID_ARGUMENT / UNAVAILABLE on failure.
  absl::Status StartHttp(const std::string& address);
  // The port actually bound (useful with port 0), or 0 when not serving.
  int HttpPort() const;

  // One scored frame: frames by feature and backend, stage latencies, score histograms, and a
  // fallback (by feature and reason) when result.fallback_reason is set.
  void RecordFrame(const FeatureSet& features, const ScoreResult& result);
  // Scores a frame gains after RecordFrame saw it: the temporal values (TemporalFinish).
  void RecordScores(const FeatureSet& features, const FrameScores& scores);
  // One frame of an encoded file read for scoring: the decode stage and, for an upscaled
  // rendition, the scale stage of ssimd_frame_stage_seconds, with backend "cpu" (FFmpeg decodes
  // on the host). Stages left unset are not observed.
  void RecordInputStages(const FeatureSet& features, std::optional<double> decode_seconds,
                         std::optional<double> scale_seconds);
  // A call that failed on a file that could not be decoded, counted in
  // ssimd_decode_errors_total{kind} by the kind its status carries (engine/media/decode_error.h);
  // statuses without a kind are not counted.
  void RecordDecodeError(const absl::Status& status);
  // One rendition whose pictures are upscaled, by where: "scorer" (by the scoring backend with a
  // libswscale plan, docs/adr/0080) or "libswscale" (on the decoding threads).
  void RecordUpscale(std::string_view where);
  // An upscale that stayed with libswscale although the scorer would have taken it, by the
  // reason's label (engine/media/luma_scale_check.h's, or "frame" for one picture of a planned
  // rendition that its plan did not fit).
  void RecordUpscaleFallback(std::string_view reason);
  // A file meant for the GPU's video engine that was decoded on the CPU, by DecodeFallbackLabel.
  void RecordDecodeFallback(std::string_view reason);
  // One decoded frame, by who decoded it ("cpu", "nvdec", "vaapi").
  void RecordDecodedFrame(std::string_view backend);
  // The decoded-picture budget (docs/adr/0084): its capacity, what is reserved now, an input
  // that had to wait, and one refused by reason: "picture_pixels" (over --max_picture_pixels),
  // "over_budget" (more than the whole budget) or "wait_timeout" (no room in time); other
  // reasons are not counted.
  void SetDecodedMemoryBudget(int64_t bytes);
  void UpdateDecodedMemoryReserved(int64_t bytes);
  void RecordDecodedMemoryWait();
  void RecordDecodedMemoryRefusal(std::string_view reason);
  // The GPU video engine's decoder sessions in use and available (polled).
  void UpdateDecodeSessions(int in_use, int total);
  // How busy the GPU's video decoders were over the driver's last sampling period, 0 to 1
  // (polled; the series appears with the first reading, so it is absent where none can be read).
  void UpdateDecodeEngineUtilization(double ratio);
  // One finished RPC, by method ("ScoreClip", ...) and gRPC status code name ("OK", ...).
  void RecordRpc(std::string_view method, std::string_view status_code);
  void StreamStarted();
  void StreamFinished();
  void FramesInFlightChanged(int delta);
  // The latest pooled (mean) score of a title for a feature; bounded by max_titles.
  void RecordTitleScore(const std::string& title, const std::string& feature, double score);
  // One rendition of a scored ladder: its pooled scores, bitrate, size and codec, for the title's
  // quality-against-bitrate view; bounded by max_titles and max_renditions_per_title.
  void RecordRendition(const RenditionRecord& record);
  // Device slots and memory, refreshed by the service (e.g. after each frame or on scrape).
  void UpdateDevices(const std::vector<DeviceStats>& devices);
  // Text exposition of everything registered (for tests and debugging).
  std::string Serialize() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ssimd

#endif  // SSIMD_SERVER_METRICS_H_
