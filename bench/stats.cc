#include "bench/stats.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "absl/strings/str_format.h"

namespace ssimd::bench {

double Percentile(std::vector<double> samples, double p) {
  if (samples.empty()) return 0;
  std::sort(samples.begin(), samples.end());
  const double rank = std::clamp(p, 0.0, 100.0) / 100.0 * (samples.size() - 1);
  const size_t below = static_cast<size_t>(std::floor(rank));
  const size_t above = std::min(below + 1, samples.size() - 1);
  const double fraction = rank - below;
  return samples[below] + fraction * (samples[above] - samples[below]);
}

void ScoreCheck::Compare(const FrameScores& got, const FrameScores& expected, int64_t frame) {
  ++checked;
  bool same = got.size() == expected.size();
  std::string detail;
  for (const auto& [metric, want] : expected) {
    auto it = got.find(metric);
    if (it == got.end()) {
      same = false;
      if (detail.empty()) detail = absl::StrFormat("frame %d: %s missing", frame, metric);
      continue;
    }
    const double have = it->second;
    const bool both_nan = std::isnan(have) && std::isnan(want);
    if (both_nan || std::memcmp(&have, &want, sizeof(double)) == 0) continue;
    same = false;
    const double diff = std::fabs(have - want);
    if (std::isfinite(diff)) max_abs_diff = std::max(max_abs_diff, diff);
    if (detail.empty()) {
      detail = absl::StrFormat("frame %d %s: %.17g, CPU engine %.17g", frame, metric, have, want);
    }
  }
  if (same) return;
  ++mismatched;
  if (first_mismatch.empty()) {
    first_mismatch = detail.empty() ? absl::StrFormat("frame %d: different metrics", frame) : detail;
  }
}

void ScoreCheck::Merge(const ScoreCheck& other) {
  checked += other.checked;
  mismatched += other.mismatched;
  max_abs_diff = std::max(max_abs_diff, other.max_abs_diff);
  if (first_mismatch.empty()) first_mismatch = other.first_mismatch;
}

void SetRates(CellResult& cell, size_t pair_bytes) {
  if (cell.seconds <= 0) return;
  cell.pairs_per_second = cell.pairs / cell.seconds;
  cell.gb_per_second = cell.pairs_per_second * static_cast<double>(pair_bytes) / 1e9;
}

void SetLatencies(CellResult& cell, const std::vector<double>& latency_seconds) {
  cell.latency_p50_ms = Percentile(latency_seconds, 50) * 1e3;
  cell.latency_p99_ms = Percentile(latency_seconds, 99) * 1e3;
}

std::string GeometryLabel(const CellResult& cell) {
  return absl::StrFormat("%dx%d %d-bit", cell.width, cell.height, cell.bit_depth);
}

}  // namespace ssimd::bench
