// Deterministic clips for the fault-and-load tool: a few geometries, bit depths and feature sets,
// each with a handful of distinct frame pairs whose expected scores come from the CPU engine (the
// ground truth every backend must match bit for bit).
#ifndef SSIMD_TOOLS_FAULT_LOAD_SYNTHETIC_CLIPS_H_
#define SSIMD_TOOLS_FAULT_LOAD_SYNTHETIC_CLIPS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/features.h"
#include "engine/picture.h"
#include "engine/scorer.h"
#include "proto/ssimd/v1/ssimd.pb.h"

namespace ssimd::fault_load {

struct FramePlanes {
  std::string reference;
  std::string distorted;
};

struct ClipVariant {
  std::string name;          // e.g. "160x90-8bit-float_ssim+lcs+ssim"
  v1::ClipConfig config;     // as sent: geometry, features, backend
  Geometry geometry;
  FeatureSet features;       // what config.features asks for
  std::vector<FramePlanes> pairs;
  // expected[i] are the scores of pairs[i]; empty when built without a scorer.
  std::vector<FrameScores> expected;

  // The pair a stream sends as frame `index`: streams start at different offsets, so results
  // delivered out of order or to the wrong stream show up as wrong scores.
  size_t PairFor(uint64_t index, uint64_t offset) const {
    return static_cast<size_t>((index + offset) % pairs.size());
  }
};

// The standard set; `large` adds 1280x720 and 1920x1080 variants (for GPU runs). With a scorer,
// fills each variant's expected scores; with nullptr, only the pictures.
absl::StatusOr<std::vector<ClipVariant>> MakeClipVariants(bool large, Scorer* cpu);
// One variant of that set (a vanishing client needs only the one it streams).
size_t ClipVariantCount(bool large);
absl::StatusOr<ClipVariant> MakeClipVariant(size_t index, bool large, Scorer* cpu);

// True when `got` carries the metrics of `expected`, each with the same bits: NaN equals NaN and
// +0 differs from -0, which is what "bit-exact" means here. The one documented exception: integer
// ssim summed by the GPU's block sums (backend "gpu:...", above kOrderedSsimMaxPixels pixels,
// with fast_sum=true) may differ by up to IntegerSsimBlockSumBound (docs/adr/0022), carried through the
// dB conversion where enable_db is set. `why` says what differs.
bool SameScores(const ClipVariant& variant, const FrameScores& expected, const v1::FrameResult& got,
                std::string* why);

}  // namespace ssimd::fault_load

#endif  // SSIMD_TOOLS_FAULT_LOAD_SYNTHETIC_CLIPS_H_
