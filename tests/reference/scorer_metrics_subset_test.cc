// Upstream libvmaf's psnr_y and float_ms_ssim for the checked-in subset, through the CPU scorer
// (the backend interface every RPC uses): every value bit for bit.
#include <iostream>

#include "engine/cpu/cpu_scorer.h"
#include "gtest/gtest.h"
#include "tests/reference/reference_dir.h"
#include "tests/reference/scorer_metrics_replay.h"

namespace ssimd::testing {
namespace {

TEST(ScorerMetricsSubset, PsnrAndMsSsimThroughTheCpuScorer) {
  const std::string dir = RunfilePath("tests/data/reference");
  auto set = LoadReferenceSet(dir);
  ASSERT_TRUE(set.ok()) << set.status();
  auto expected = LoadExpectedMetrics(dir);
  ASSERT_TRUE(expected.ok()) << expected.status();
  std::unique_ptr<Scorer> cpu = MakeCpuScorer();
  int64_t compared = 0;
  for (const ReferencePair& pair : set->pairs) {
    const auto entry = expected->find(pair.id);
    ASSERT_NE(entry, expected->end()) << pair.id;
    auto report = ReplayUpstreamMetricsThrough(pair, entry->second, *cpu);
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
