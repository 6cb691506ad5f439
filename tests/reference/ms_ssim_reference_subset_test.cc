// Replays libvmaf's float_ms_ssim for the checked-in subset (tests/data/reference/
// expected_metrics.json) through the CPU float_ms_ssim: every value equals libvmaf's binary64 bit
// for bit, and every pair without values is one the size rule refuses or the tool could not read.
#include <iostream>

#include "gtest/gtest.h"
#include "tests/reference/ms_ssim_replay.h"
#include "tests/reference/full_metrics_set.h"
#include "tests/reference/psnr_replay.h"
#include "tests/reference/reference_set.h"

namespace ssimd::testing {
namespace {

TEST(MsSsimReferenceSubset, EveryValueBitIdentical) {
  const absl::StatusOr<MetricsSet> subset = LoadMetricsSubset();
  ASSERT_TRUE(subset.ok()) << subset.status();
  int replayed = 0, refused_for_size = 0, unreadable = 0;
  int64_t compared = 0;
  for (const ReferencePair& pair : subset->set.pairs) {
    const ExpectedMetrics& expected = subset->expected.at(pair.id);
    auto replay = ReplayMsSsimPair(pair, expected);
    ASSERT_TRUE(replay.ok()) << pair.id << ": " << replay.status();
    switch (replay->outcome) {
      case MsSsimReplay::Outcome::kRefusedForSize:
        ++refused_for_size;
        continue;
      case MsSsimReplay::Outcome::kClipsUnreadable:
        std::cout << pair.id << ": nothing to compare, " << replay->note << "\n";
        ++unreadable;
        continue;
      case MsSsimReplay::Outcome::kCompared:
        break;
    }
    EXPECT_GT(replay->report.compared, 0) << pair.id;
    for (const Mismatch& m : replay->report.mismatches) {
      ADD_FAILURE() << pair.id << ": " << m.ToString();
    }
    compared += replay->report.compared;
    ++replayed;
  }
  // The subset keeps float_ms_ssim of 8- and 10-bit, 4:2:0, 4:2:2 and 4:4:4 pairs from 320x180
  // to 1920x1080, flat and identical ones among them, and the tiny pairs it refuses.
  EXPECT_GE(replayed, 9);
  EXPECT_GE(refused_for_size, 20);
  std::cout << replayed << " pairs replayed, " << compared << " float_ms_ssim values compared, "
            << refused_for_size << " pairs below the size rule, " << unreadable
            << " unreadable by the vmaf tool\n";
}

}  // namespace
}  // namespace ssimd::testing
