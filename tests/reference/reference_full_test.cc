// Replays the whole reference set (../shared/reference beside the source tree, or
// $SSIMD_REFERENCE_DIR): every frame of every pair under every option set, compared with
// libvmaf's binary64 values bit for bit. Skips, saying why, where the set is absent.
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
  static const std::string* const dir = new std::string(
      FindReferenceDirectory("tests/reference/reference_full_test.cc", "../shared/reference"));
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
    GTEST_SKIP() << "reference set not found: set SSIMD_REFERENCE_DIR or place it at "
                    "../shared/reference beside the source tree (the checked-in subset in "
                    "tests/data/reference is tested by reference_subset_test)";
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
