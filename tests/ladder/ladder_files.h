// The ladder test set for end-to-end checks: the committed renditions and expected scores
// (tests/data/ladder) and the sources that tools/ladder_sources.sh rebuilds into a cache.
#ifndef SSIMD_TESTS_LADDER_LADDER_FILES_H_
#define SSIMD_TESTS_LADDER_LADDER_FILES_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace ssimd::testing {

// Where tools/ladder_sources.sh puts the sources: $SSIMD_LADDER_SOURCES, else
// /var/cache/ssimd/ladder-sources.
std::string LadderSourcesDir();

// Empty when src.y4m, src_ffv1.mkv and src10.y4m are all there; else why not (for a skip).
std::string MissingSourcesReason();

struct ExpectedRendition {
  std::string rendition;
  std::string reference;  // "src.y4m" or "src10.y4m"
  std::string distorted;  // the file name
  int bit_depth = 8;
  std::vector<double> float_ssim;
  std::vector<double> ssim;
  // Upstream libvmaf's (expected_metrics.json, plain bicubic), where ReadExpectedMetrics added
  // them; empty otherwise.
  std::vector<double> psnr_y;
  std::vector<double> psnr_cb;
  std::vector<double> psnr_cr;
  std::vector<double> float_ms_ssim;
  // vmaf (libvmaf's vmaf_v0.6.1) and the integer features libvmaf reports with it, by key.
  std::map<std::string, std::vector<double>> vmaf;
};

// tests/data/ladder/<file>, e.g. expected_scores_accurate_rnd.json.
absl::StatusOr<std::vector<ExpectedRendition>> ReadExpectedScores(const std::string& file);

// Adds psnr_y, psnr_cb, psnr_cr, float_ms_ssim and vmaf's from
// tests/data/ladder/expected_metrics.json (made after the plain bicubic upscale, as
// expected_scores.json) to each rendition of `renditions`.
absl::Status ReadExpectedMetrics(std::vector<ExpectedRendition>& renditions);

// Makes `dir` (created) hold every rendition and, with `with_sources`, the three sources, as hard
// links where the file system allows and copies elsewhere (a server's files root refuses symbolic
// links that lead out).
absl::Status FillFilesRoot(const std::string& dir, bool with_sources = true);

}  // namespace ssimd::testing

#endif  // SSIMD_TESTS_LADDER_LADDER_FILES_H_
