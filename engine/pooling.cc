#include "engine/pooling.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_format.h"

namespace ssimd {

void ScorePooler::Add(double score) {
  if (count_ == 0 || score < min_) min_ = score;
  if (count_ == 0 || score > max_) max_ = score;
  sum_ += score;
  inverse_sum_ += 1.0 / (score + 1.0);
  ++count_;
}

absl::StatusOr<PooledScores> ScorePooler::Result() const {
  if (count_ == 0) {
    return absl::InvalidArgumentError("cannot pool scores of zero frames: score at least one frame");
  }
  const double n = static_cast<double>(count_);
  PooledScores out;
  out.mean = sum_ / n;
  out.min = min_;
  out.max = max_;
  out.harmonic_mean = n / inverse_sum_ - 1.0;
  return out;
}

absl::StatusOr<PooledScores> PoolScores(absl::Span<const double> scores) {
  ScorePooler pooler;
  for (double s : scores) pooler.Add(s);
  return pooler.Result();
}

absl::StatusOr<double> Percentile(absl::Span<const double> scores, double p) {
  if (scores.empty()) {
    return absl::InvalidArgumentError("cannot take a percentile of zero frames");
  }
  if (!(p >= 0.0 && p <= 100.0)) {
    return absl::InvalidArgumentError(
        absl::StrFormat("percentile must be between 0 and 100, got %g", p));
  }
  std::vector<double> sorted(scores.begin(), scores.end());
  // NaN last; otherwise ascending (std::sort needs a strict weak order, which < alone is not).
  std::sort(sorted.begin(), sorted.end(), [](double a, double b) {
    if (std::isnan(a)) return false;
    if (std::isnan(b)) return true;
    return a < b;
  });
  const double rank = p / 100.0 * static_cast<double>(sorted.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(rank));
  const size_t hi = static_cast<size_t>(std::ceil(rank));
  if (lo == hi) return sorted[lo];
  const double fraction = rank - static_cast<double>(lo);
  return sorted[lo] + fraction * (sorted[hi] - sorted[lo]);
}

}  // namespace ssimd
