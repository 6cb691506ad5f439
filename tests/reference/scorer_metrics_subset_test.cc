// Upstream libvmaf's psnr_y and float_ms_ssim for the checked-in subset, through the CPU scorer
// (the backend interface every RPC uses): every value bit for bit.
#include <iostream>

#include "engine/cpu/cpu_scorer.h"
#include "gtest/gtest.h"
#include "tests/reference/full_metrics_set.h"
#include "tests/reference/scorer_metrics_replay.h"

namespace ssimd::testing {
namespace {

TEST(ScorerMetricsSubset, PsnrAndMsSsimThroughTheCpuScorer) {
  const absl::StatusOr<MetricsSet> subset = LoadMetricsSubset();
  ASSERT_TRUE(subset.ok()) << subset.status();
  std::unique_ptr<Scorer> cpu = MakeCpuScorer();
  int64_t compared = 0;
  for (const ReferencePair& pair : subset->set.pairs) {
    const ExpectedMetrics& expected = subset->expected.at(pair.id);
    auto report = ReplayUpstreamMetricsThrough(pair, expected, *cpu);
    ASSERT_TRUE(report.ok()) << report.status();
    for (const Mismatch& m : report->mismatches) ADD_FAILURE() << pair.id << ": " << m.ToString();
    compared += report->compared;
  }
  // 396 psnr values less the chroma ones, and 26 float_ms_ssim values (make_subset.py).
  EXPECT_GE(compared, 150);
  std::cout << compared << " psnr_y and float_ms_ssim values compared\n";
}

}  // namespace
}  // namespace ssimd::testing
