// The reference clips and libvmaf's per-frame scores (the set's layout: expected_scores.json
// beside clips/*.yuv.xz), and a replay that scores every frame of every option set and compares
// the binary64 values bit for bit.
#ifndef SSIMD_TESTS_REFERENCE_REFERENCE_SET_H_
#define SSIMD_TESTS_REFERENCE_REFERENCE_SET_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/features.h"
#include "engine/picture.h"
#include "engine/scorer.h"

namespace ssimd::testing {

// Per-frame values of one option set, keyed by metric name.
using ConfigScores = std::map<std::string, std::vector<double>>;

struct ReferencePair {
  std::string id;
  std::string reference_clip;  // path of the .yuv.xz
  std::string distorted_clip;
  Geometry geometry;
  int frames = 0;
  bool float_ssim_defined = true;
  // config name (e.g. "float_ssim_scale3") -> metric -> per-frame value.
  std::map<std::string, ConfigScores> scores;
  // Where float_ssim is undefined: what upstream libvmaf returns (docs/numerics.md §9), if
  // recorded.
  std::vector<double> upstream_float_ssim;
};

struct ReferenceSet {
  std::string directory;
  // config name -> its libvmaf --feature argument, e.g. "float_ssim=scale=3".
  std::map<std::string, std::string> feature_args;
  std::vector<ReferencePair> pairs;
};

absl::StatusOr<ReferenceSet> LoadReferenceSet(const std::string& directory);

// The whole of a .xz file, decompressed with the xz tool.
absl::StatusOr<std::vector<uint8_t>> ReadXzFile(const std::string& path);

// Luma planes of the first `frames` frames of a raw .yuv.xz clip (ReadXzFile).
absl::StatusOr<std::vector<std::vector<uint8_t>>> ReadClipLuma(const std::string& path,
                                                               const Geometry& geometry,
                                                               int frames);

// True when the two values are the same binary64, or both NaN (the reference prints NaN without
// sign or payload).
bool SameBits(double expected, double actual);

struct Mismatch {
  std::string config;
  std::string metric;
  int frame = 0;
  double expected = 0;
  double actual = 0;
  std::string ToString() const;
};

struct ReplayReport {
  int64_t compared = 0;  // values compared
  std::vector<Mismatch> mismatches;
};

// Scores every frame of `pair` under every option set it lists (and, where float_ssim is
// undefined, the automatic float_ssim against upstream's value) and compares the results.
absl::StatusOr<ReplayReport> ReplayPair(const ReferenceSet& set, const ReferencePair& pair,
                                        Scorer& scorer);

}  // namespace ssimd::testing

#endif  // SSIMD_TESTS_REFERENCE_REFERENCE_SET_H_
