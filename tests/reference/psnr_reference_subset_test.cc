// Replays libvmaf's psnr for the checked-in subset (tests/data/reference/expected_metrics.json)
// through the CPU psnr: every psnr_y, psnr_cb and psnr_cr equals libvmaf's binary64 bit for bit.
#include <iostream>

#include "gtest/gtest.h"
#include "tests/reference/full_metrics_set.h"
#include "tests/reference/psnr_replay.h"
#include "tests/reference/reference_set.h"

namespace ssimd::testing {
namespace {

TEST(PsnrReferenceSubset, EveryValueBitIdentical) {
  const absl::StatusOr<MetricsSet> subset = LoadMetricsSubset();
  ASSERT_TRUE(subset.ok()) << subset.status();
  int replayed = 0;
  int refused = 0;
  int64_t compared = 0;
  for (const ReferencePair& pair : subset->set.pairs) {
    const ExpectedMetrics& expected = subset->expected.at(pair.id);
    if (expected.psnr_refused()) {
      // The vmaf tool could not read these odd-size files: no values to compare.
      EXPECT_EQ(expected.metrics.count("psnr_y"), 0u) << pair.id;
      ++refused;
      continue;
    }
    auto report = ReplayPsnrPair(pair, expected);
    ASSERT_TRUE(report.ok()) << pair.id << ": " << report.status();
    EXPECT_GT(report->compared, 0) << pair.id;
    for (const Mismatch& m : report->mismatches) ADD_FAILURE() << pair.id << ": " << m.ToString();
    compared += report->compared;
    ++replayed;
  }
  // The subset keeps psnr of 8- and 10-bit, 4:2:0, 4:2:2 and 4:4:4 pairs and the 1x1 clips.
  EXPECT_GE(replayed, 20);
  std::cout << replayed << " pairs replayed, " << refused << " refused by libvmaf, " << compared
            << " psnr values compared\n";
}

}  // namespace
}  // namespace ssimd::testing
