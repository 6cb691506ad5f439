// Replays libvmaf's float_ms_ssim for the whole reference set (external data named by
// $SSIMD_REFERENCE_DIR, with expected_metrics.json): every value of every pair equals libvmaf's
// binary64 bit for bit, and every pair without values is one the size rule refuses or the tool
// could not read. The whole test skips where the set is absent.
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/reference/ms_ssim_replay.h"
#include "tests/reference/psnr_replay.h"
#include "tests/reference/reference_dir.h"
#include "tests/reference/reference_set.h"

namespace ssimd::testing {
namespace {

struct Loaded {
  ReferenceSet set;
  std::map<std::string, ExpectedMetrics> expected;
};

const Loaded* LoadedSet() {
  static const Loaded* const loaded = []() -> const Loaded* {
    const std::string dir = FullReferenceDirectory();
    if (dir.empty()) return nullptr;
    auto set = LoadReferenceSet(dir);
    auto expected = LoadExpectedMetrics(dir);
    if (!set.ok() || !expected.ok()) {
      std::cerr << set.status() << " " << expected.status() << "\n";
      return nullptr;
    }
    return new Loaded{std::move(*set), std::move(*expected)};
  }();
  return loaded;
}

std::vector<std::string> PairIds() {
  std::vector<std::string> ids;
  if (const Loaded* loaded = LoadedSet(); loaded != nullptr) {
    for (const ReferencePair& p : loaded->set.pairs) ids.push_back(p.id);
  }
  if (ids.empty()) ids.push_back("reference_set_absent");
  return ids;
}

class MsSsimFullReferenceSet : public ::testing::TestWithParam<std::string> {};

TEST_P(MsSsimFullReferenceSet, EveryValueBitIdentical) {
  const Loaded* loaded = LoadedSet();
  if (loaded == nullptr) {
    GTEST_SKIP() << "full reference set not given (or without expected_metrics.json): pass "
                    "--test_env=SSIMD_REFERENCE_DIR=<directory>; the checked-in subset is "
                    "tested by ms_ssim_reference_subset_test";
  }
  const ReferencePair* pair = nullptr;
  for (const ReferencePair& p : loaded->set.pairs) {
    if (p.id == GetParam()) pair = &p;
  }
  ASSERT_NE(pair, nullptr);
  const auto entry = loaded->expected.find(pair->id);
  ASSERT_NE(entry, loaded->expected.end()) << "no entry in expected_metrics.json";
  auto replay = ReplayMsSsimPair(*pair, entry->second);
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

INSTANTIATE_TEST_SUITE_P(Pairs, MsSsimFullReferenceSet, ::testing::ValuesIn(PairIds()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

}  // namespace
}  // namespace ssimd::testing
