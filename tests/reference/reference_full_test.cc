// Replays the whole reference set (external data named by $SSIMD_REFERENCE_DIR, which
// tools/test.sh sets where the data is present): every frame of every pair under every option set,
// compared with libvmaf's binary64 values bit for bit. Skips, saying why, where the set is absent.
#include <iostream>
#include <string>
#include <vector>

#include "engine/cpu/cpu_scorer.h"
#include "gtest/gtest.h"
#include "tests/reference/reference_dir.h"
#include "tests/reference/reference_set.h"

namespace ssimd::testing {
namespace {

const std::string& ReferenceDirectory() {
  static const std::string* const dir = new std::string(FullReferenceDirectory());
  return *dir;
}

const ReferenceSet* LoadedSet() {
  static const ReferenceSet* const set = [] {
    if (ReferenceDirectory().empty()) return static_cast<ReferenceSet*>(nullptr);
    auto loaded = LoadReferenceSet(ReferenceDirectory());
    if (!loaded.ok()) {
      std::cerr << loaded.status() << "\n";
      return static_cast<ReferenceSet*>(nullptr);
    }
    return new ReferenceSet(std::move(*loaded));
  }();
  return set;
}

std::vector<std::string> PairIds() {
  std::vector<std::string> ids;
  if (const ReferenceSet* set = LoadedSet(); set != nullptr) {
    for (const ReferencePair& p : set->pairs) ids.push_back(p.id);
  }
  if (ids.empty()) ids.push_back("reference_set_absent");
  return ids;
}

class FullReferenceSet : public ::testing::TestWithParam<std::string> {};

TEST_P(FullReferenceSet, EveryFrameBitIdentical) {
  const ReferenceSet* set = LoadedSet();
  if (set == nullptr) {
    GTEST_SKIP() << "full reference set not given: run tools/test.sh where the data is present, "
                    "or pass --test_env=SSIMD_REFERENCE_DIR=<directory with "
                    "expected_scores.json> (the checked-in subset in tests/data/reference is "
                    "tested by reference_subset_test)";
  }
  const ReferencePair* pair = nullptr;
  for (const ReferencePair& p : set->pairs) {
    if (p.id == GetParam()) pair = &p;
  }
  ASSERT_NE(pair, nullptr);
  auto scorer = MakeCpuScorer();
  auto report = ReplayPair(*set, *pair, *scorer);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_GT(report->compared, 0);
  for (const Mismatch& m : report->mismatches) ADD_FAILURE() << pair->id << ": " << m.ToString();
  std::cout << pair->id << ": " << report->compared << " values compared, "
            << report->mismatches.size() << " differ\n";
}

INSTANTIATE_TEST_SUITE_P(Pairs, FullReferenceSet, ::testing::ValuesIn(PairIds()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

}  // namespace
}  // namespace ssimd::testing
