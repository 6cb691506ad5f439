// libvmaf's psnr for a reference set (expected_metrics.json beside expected_scores.json; see
// tests/data/reference/README.md) and its replay through the CPU psnr, compared bit for bit.
//
// The values come from upstream's `vmaf` tool, which reads a raw frame as planes of libvmaf's
// sizes back to back: chroma sides rounded down, where the files round them up. The two agree for
// even sizes; for a 1x1 4:2:0 clip the tool reads one byte a frame (empty chroma), and the replay
// reads the clip the same way so that every value it was given is compared. Pairs whose psnr the
// tool refused (other odd sizes: "Error reading YUV frame data.") have no values and are skipped.
#ifndef SSIMD_TESTS_REFERENCE_PSNR_REPLAY_H_
#define SSIMD_TESTS_REFERENCE_PSNR_REPLAY_H_

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/cpu/psnr.h"
#include "engine/picture.h"
#include "tests/reference/reference_set.h"

namespace ssimd::testing {

// One pair's entry of expected_metrics.json.
struct ExpectedMetrics {
  // Feature set tried ("all", "psnr+vmaf", "psnr") -> libvmaf's last line where it refused.
  std::map<std::string, std::string> refused;
  // Metric -> one value per frame the vmaf tool read.
  std::map<std::string, std::vector<double>> metrics;

  bool psnr_refused() const { return refused.count("psnr") != 0; }
};

// Pair id -> its entry, from DIRECTORY/expected_metrics.json.
absl::StatusOr<std::map<std::string, ExpectedMetrics>> LoadExpectedMetrics(
    const std::string& directory);

// The frames of a raw .yuv.xz clip as upstream's vmaf tool reads them (see above), each as
// PsnrPlanes over `storage`. DATA_LOSS if the clip is not a whole number of such frames.
struct ToolFrames {
  std::vector<uint8_t> storage;
  std::vector<PsnrPlanes> frames;
};
absl::StatusOr<ToolFrames> ReadClipAsVmafTool(const std::string& path, const Geometry& geometry);

// Both clips of a pair as the tool reads them; a pair of one clip with itself is read once.
struct ToolPair {
  ToolFrames reference;
  std::optional<ToolFrames> distorted_clip;  // unset where it is the reference's clip

  const ToolFrames& distorted() const { return distorted_clip ? *distorted_clip : reference; }
  // The frames the tool scores: it stops at the end of the shorter clip.
  size_t frames() const {
    return std::min(reference.frames.size(), distorted().frames.size());
  }
};
absl::StatusOr<ToolPair> ReadPairAsVmafTool(const ReferencePair& pair);

// Scores every frame of `pair` with the psnr defaults (psnr_y, psnr_cb, psnr_cr) and compares
// each value the entry gives. FAILED_PRECONDITION when the entry has psnr refused; an error when
// the frame counts differ.
absl::StatusOr<ReplayReport> ReplayPsnrPair(const ReferencePair& pair,
                                            const ExpectedMetrics& expected);

}  // namespace ssimd::testing

#endif  // SSIMD_TESTS_REFERENCE_PSNR_REPLAY_H_
