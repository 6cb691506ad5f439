#include "proto/clip_accumulator.h"

#include "engine/pooling.h"
#include "engine/psnr_scores.h"

namespace ssimd {

void ClipAccumulator::Add(const FrameScores& scores, const FrameSums& sums,
                          const std::string& backend, bool fell_back) {
  ++frames_;
  if (fell_back) ++fallback_frames_;
  ++frames_by_backend_[backend];
  for (const auto& [metric, value] : scores) series_[metric].push_back(value);
  for (const auto& [name, value] : sums) sums_[name] += value;
}

void ClipAccumulator::FillSummary(const std::vector<double>& percentiles,
                                  v1::ClipSummary* summary) const {
  summary->set_frames(frames_);
  summary->set_fallback_frames(fallback_frames_);
  for (const auto& [backend, count] : frames_by_backend_) {
    (*summary->mutable_frames_by_backend())[backend] = count;
  }
  for (const auto& [metric, values] : series_) {
    auto pooled = PoolScores(values);
    if (!pooled.ok()) continue;  // only when empty, which a present series never is
    v1::PooledScore& out = (*summary->mutable_pooled())[metric];
    out.set_mean(pooled->mean);
    out.set_min(pooled->min);
    out.set_max(pooled->max);
    out.set_harmonic_mean(pooled->harmonic_mean);
    for (double p : percentiles) {
      auto value = Percentile(values, p);
      if (!value.ok()) continue;  // p was validated with the request
      v1::Percentile* entry = out.add_percentiles();
      entry->set_percentile(p);
      entry->set_value(*value);
    }
  }
  for (const auto& [name, value] : ApsnrScores(sums_, frames_)) {
    (*summary->mutable_aggregate())[name] = value;
  }
}

std::map<std::string, double> ClipAccumulator::Means() const {
  std::map<std::string, double> out;
  for (const auto& [metric, values] : series_) {
    auto pooled = PoolScores(values);
    if (pooled.ok()) out[metric] = pooled->mean;
  }
  return out;
}

}  // namespace ssimd
