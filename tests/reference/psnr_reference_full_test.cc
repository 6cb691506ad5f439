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
  const FullMetricsSet* loaded = LoadedFullMetricsSet();
  if (loaded == nullptr) GTEST_SKIP() << FullMetricsSetAbsent("psnr_reference_subset_test");
  const ReferencePair* pair = nullptr;
  for (const ReferencePair& p : loaded->set.pairs) {
    if (p.id == GetParam()) pair = &p;
  }
  ASSERT_NE(pair, nullptr);
  const auto entry = loaded->expected.find(pair->id);
  ASSERT_NE(entry, loaded->expected.end()) << "no entry in expected_metrics.json";
  if (entry->second.psnr_refused()) {
    EXPECT_EQ(entry->second.metrics.count("psnr_y"), 0u);
    GTEST_SKIP() << "libvmaf's vmaf tool refused psnr for this pair ("
                 << entry->second.refused.at("psnr") << "): no values to compare";
  }
  auto report = ReplayPsnrPair(*pair, entry->second);
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
