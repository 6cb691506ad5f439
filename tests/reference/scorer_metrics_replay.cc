#include "tests/reference/scorer_metrics_replay.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/strings/str_format.h"
#include "base/double_bits.h"

namespace ssimd::testing {

absl::StatusOr<ReplayReport> ReplayUpstreamMetricsThrough(const ReferencePair& pair,
                                                          const ExpectedMetrics& expected,
                                                          Scorer& scorer) {
  FeatureSet features;
  std::vector<std::string> metrics;
  if (!expected.psnr_refused()) {
    features.psnr = PsnrOptions{};
    features.psnr->enable_chroma = false;  // frame pairs carry luma
    metrics.push_back("psnr_y");
  }
  if (expected.metrics.count("float_ms_ssim") != 0) {
    features.float_ms_ssim = FloatMsSsimOptions{};
    metrics.push_back("float_ms_ssim");
  }
  ReplayReport report;
  if (metrics.empty()) return report;

  absl::StatusOr<ToolPair> clips = ReadPairAsVmafTool(pair);
  if (!clips.ok()) return clips.status();
  const ToolFrames* ref = &clips->reference;
  const ToolFrames* dist = &clips->distorted();
  const size_t frames = clips->frames();
  for (const std::string& metric : metrics) {
    if (expected.metrics.count(metric) == 0 || expected.metrics.at(metric).size() != frames) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "pair %s: expected_metrics.json has no %s for each of the %d frames the vmaf tool reads",
          pair.id, metric, frames));
    }
  }
  for (size_t f = 0; f < frames; ++f) {
    // Plane 0 of a tool frame is its luma.
    const FramePair frame{ref->frames[f][0], dist->frames[f][0]};
    absl::StatusOr<ScoreResult> result = scorer.Score(pair.geometry, features, frame);
    if (!result.ok()) {
      return absl::Status(result.status().code(), absl::StrFormat("pair %s frame %d: %s", pair.id,
                                                                  f, result.status().message()));
    }
    for (const std::string& metric : metrics) {
      const auto got = result->scores.find(metric);
      if (got == result->scores.end()) {
        return absl::InternalError(
            absl::StrFormat("pair %s frame %d: the scorer gave no %s", pair.id, f, metric));
      }
      const double want = expected.metrics.at(metric)[f];
      ++report.compared;
      if (!SameBits(want, got->second)) {
        report.mismatches.push_back({"upstream", metric, static_cast<int>(f), want, got->second});
      }
    }
  }
  return report;
}

}  // namespace ssimd::testing
