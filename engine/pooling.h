// Pooling a clip's per-frame scores into one number per metric, as libvmaf's
// vmaf_feature_score_pooled() does (binary64, frames in order), plus percentiles.
#ifndef SSIMD_ENGINE_POOLING_H_
#define SSIMD_ENGINE_POOLING_H_

#include <cstddef>

#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace ssimd {

// libvmaf's four pooled values. For scores s_0..s_{n-1} in frame order:
//   mean          = (((s_0 + s_1) + ...) + s_{n-1}) / n
//   min, max      = first frame's score, replaced by a later one only when strictly smaller
//                   (larger); so a NaN first frame stays, a later NaN is never taken
//   harmonic_mean = n / (((1/(s_0+1)) + ...) + 1/(s_{n-1}+1)) - 1
struct PooledScores {
  double mean = 0;
  double min = 0;
  double max = 0;
  double harmonic_mean = 0;
};

// Accumulates one metric frame by frame, so a stream need not keep every score.
class ScorePooler {
 public:
  void Add(double score);
  size_t count() const { return count_; }
  // INVALID_ARGUMENT (FAILED_PRECONDITION would suggest retrying) when no frame was added.
  absl::StatusOr<PooledScores> Result() const;

 private:
  size_t count_ = 0;
  double sum_ = 0;
  double inverse_sum_ = 0;
  double min_ = 0;
  double max_ = 0;
};

// The same over a whole series; INVALID_ARGUMENT when `scores` is empty.
absl::StatusOr<PooledScores> PoolScores(absl::Span<const double> scores);

// The p-th percentile, p in [0, 100], by linear interpolation between closest ranks (NumPy's
// default, as libvmaf's Python tools use for perc5/perc10/perc20): with the scores sorted
// ascending as v_0..v_{n-1}, r = p/100 * (n-1), result = v_floor(r) + (r - floor(r)) *
// (v_ceil(r) - v_floor(r)); exact order statistics at integer r (p = 0 is the min, 100 the max,
// 50 the median). NaN scores sort after every number, so they only show at the top percentiles.
// INVALID_ARGUMENT when `scores` is empty or p is outside [0, 100] or NaN.
absl::StatusOr<double> Percentile(absl::Span<const double> scores, double p);

}  // namespace ssimd

#endif  // SSIMD_ENGINE_POOLING_H_
