// Replays libvmaf's float_ms_ssim for the whole reference set (external data named by
// $SSIMD_REFERENCE_DIR, with expected_metrics.json): every value of every pair equals libvmaf's
// binary64 bit for bit, and every pair without values is one the size rule refuses or the tool
// could not read. The whole test skips where the set is absent.
#include <iostream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/reference/full_metrics_set.h"
#include "tests/reference/ms_ssim_replay.h"
#include "tests/reference/psnr_replay.h"
#include "tests/reference/reference_set.h"

namespace ssimd::testing {
namespace {

class MsSsimFullReferenceSet : public ::testing::TestWithParam<std::string> {};

TEST_P(MsSsimFullReferenceSet, EveryValueBitIdentical) {
  const MetricsSet* loaded = LoadedFullMetricsSet();
  if (loaded == nullptr) GTEST_SKIP() << FullMetricsSetAbsent("ms_ssim_reference_subset_test");
  const absl::StatusOr<FullMetricsPair> found = FindFullMetricsPair(*loaded, GetParam());
  ASSERT_TRUE(found.ok()) << found.status();
  const ReferencePair* pair = found->pair;
  const ExpectedMetrics& expected = *found->expected;
  auto replay = ReplayMsSsimPair(*pair, expected);
  ASSERT_TRUE(replay.ok()) << replay.status();
  switch (replay->outcome) {
    case MsSsimReplay::Outcome::kRefusedForSize:
      std::cout << pair->id
                << ": no float_ms_ssim from libvmaf, and refused here too: " << replay->note
                << "\n";
      return;
    case MsSsimReplay::Outcome::kClipsUnreadable:
      GTEST_SKIP() << replay->note << ": no values to compare";
    case MsSsimReplay::Outcome::kCompared:
      break;
  }
  EXPECT_GT(replay->report.compared, 0);
  for (const Mismatch& m : replay->report.mismatches) {
    ADD_FAILURE() << pair->id << ": " << m.ToString();
  }
  std::cout << pair->id << ": " << replay->report.compared << " float_ms_ssim values compared, "
            << replay->report.mismatches.size() << " differ\n";
}

INSTANTIATE_TEST_SUITE_P(Pairs, MsSsimFullReferenceSet, ::testing::ValuesIn(FullMetricsPairIds()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

}  // namespace
}  // namespace ssimd::testing
