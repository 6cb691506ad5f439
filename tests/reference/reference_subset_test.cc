// Replays the checked-in reference subset (tests/data/reference) through the CPU engine: every
// frame under every option set equals libvmaf's binary64 value bit for bit.
#include <iostream>

#include "engine/cpu/cpu_scorer.h"
#include "gtest/gtest.h"
#include "tests/reference/reference_dir.h"
#include "tests/reference/reference_set.h"

namespace ssimd::testing {
namespace {

TEST(ReferenceSubset, EveryFrameBitIdentical) {
  auto set = LoadReferenceSet(RunfilePath("tests/data/reference"));
  ASSERT_TRUE(set.ok()) << set.status();
  ASSERT_GE(set->pairs.size(), 30u);
  // Two threads, as on the CI machine; thread-count independence is tested separately.
  auto scorer = MakeCpuScorer({.threads = 2});
  int64_t compared = 0;
  for (const ReferencePair& pair : set->pairs) {
    auto report = ReplayPair(*set, pair, *scorer);
    ASSERT_TRUE(report.ok()) << pair.id << ": " << report.status();
    EXPECT_GT(report->compared, 0) << pair.id;
    for (const Mismatch& m : report->mismatches) ADD_FAILURE() << pair.id << ": " << m.ToString();
    compared += report->compared;
  }
  std::cout << set->pairs.size() << " pairs, " << compared << " values compared\n";
}

}  // namespace
}  // namespace ssimd::testing
