// Upstream libvmaf's psnr_y and float_ms_ssim for a reference set (expected_metrics.json),
// replayed through a Scorer: the backends' wiring of both metrics, not only their arithmetic
// (psnr_replay and ms_ssim_replay check that against the CPU functions themselves). The GPU tests
// pass a scorer that also checks each frame against the CPU engine.
#ifndef SSIMD_TESTS_REFERENCE_SCORER_METRICS_REPLAY_H_
#define SSIMD_TESTS_REFERENCE_SCORER_METRICS_REPLAY_H_

#include "absl/status/statusor.h"
#include "engine/scorer.h"
#include "tests/reference/psnr_replay.h"
#include "tests/reference/reference_set.h"

namespace ssimd::testing {

// Scores every frame the vmaf tool read of `pair` through `scorer`, asking for psnr of the luma
// where libvmaf gave psnr and for float_ms_ssim where it gave float_ms_ssim, and compares psnr_y
// and float_ms_ssim bit for bit. Nothing is compared (and no error) where the entry has neither.
absl::StatusOr<ReplayReport> ReplayUpstreamMetricsThrough(const ReferencePair& pair,
                                                          const ExpectedMetrics& expected,
                                                          Scorer& scorer);

}  // namespace ssimd::testing

#endif  // SSIMD_TESTS_REFERENCE_SCORER_METRICS_REPLAY_H_
