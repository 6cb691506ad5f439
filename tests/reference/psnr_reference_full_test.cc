// Replays libvmaf's psnr for the whole reference set (external data named by
// $SSIMD_REFERENCE_DIR, with expected_metrics.json): every psnr_y, psnr_cb and psnr_cr of every
// pair equals libvmaf's binary64 bit for bit. Pairs libvmaf refused are skipped, saying why;
// the whole test skips where the set is absent.
#include <iostream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/reference/full_metrics_set.h"
#include "tests/reference/psnr_replay.h"
#include "tests/reference/reference_set.h"

namespace ssimd::testing {
namespace {

class PsnrFullReferenceSet : public ::testing::TestWithParam<std::string> {};

TEST_P(PsnrFullReferenceSet, EveryValueBitIdentical) {
  const MetricsSet* loaded = LoadedFullMetricsSet();
  if (loaded == nullptr) GTEST_SKIP() << FullMetricsSetAbsent("psnr_reference_subset_test");
  const absl::StatusOr<FullMetricsPair> found = FindFullMetricsPair(*loaded, GetParam());
  ASSERT_TRUE(found.ok()) << found.status();
  const ReferencePair* pair = found->pair;
  const ExpectedMetrics& expected = *found->expected;
  if (expected.psnr_refused()) {
    EXPECT_EQ(expected.metrics.count("psnr_y"), 0u);
    GTEST_SKIP() << "libvmaf's vmaf tool refused psnr for this pair ("
                 << expected.refused.at("psnr") << "): no values to compare";
  }
  auto report = ReplayPsnrPair(*pair, expected);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_GT(report->compared, 0);
  for (const Mismatch& m : report->mismatches) ADD_FAILURE() << pair->id << ": " << m.ToString();
  std::cout << pair->id << ": " << report->compared << " psnr values compared, "
            << report->mismatches.size() << " differ\n";
}

INSTANTIATE_TEST_SUITE_P(Pairs, PsnrFullReferenceSet, ::testing::ValuesIn(FullMetricsPairIds()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

}  // namespace
}  // namespace ssimd::testing
