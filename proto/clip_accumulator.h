// Collects a clip's frame results in frame order and pools them into the ClipSummary.
#ifndef SSIMD_PROTO_CLIP_ACCUMULATOR_H_
#define SSIMD_PROTO_CLIP_ACCUMULATOR_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "engine/features.h"
#include "proto/ssimd/v1/ssimd.pb.h"

namespace ssimd {

class ClipAccumulator {
 public:
  // Frames must be added in frame order: libvmaf's pooled mean sums them in that order. `sums`
  // (FrameSums) add up into the clip's aggregate values.
  void Add(const FrameScores& scores, const FrameSums& sums, const std::string& backend,
           bool fell_back);

  uint64_t frames() const { return frames_; }

  // Pooled scores by metric with the given percentiles (each in [0, 100]), and the aggregate
  // values (apsnr_*) where the frames' sums give some. A clip of zero frames has empty maps.
  void FillSummary(const std::vector<double>& percentiles, v1::ClipSummary* summary) const;

  // The pooled mean of each metric (for per-title metrics); empty before the first frame.
  std::map<std::string, double> Means() const;

 private:
  uint64_t frames_ = 0;
  uint64_t fallback_frames_ = 0;
  std::map<std::string, std::vector<double>> series_;
  FrameSums sums_;  // the frames' sums added up
  std::map<std::string, uint64_t> frames_by_backend_;
};

}  // namespace ssimd

#endif  // SSIMD_PROTO_CLIP_ACCUMULATOR_H_
