// Replays libvmaf's psnr for the whole reference set (external data named by
// $SSIMD_REFERENCE_DIR, with expected_metrics.json): every psnr_y, psnr_cb and psnr_cr of every
// pair equals libvmaf's binary64 bit for bit. Pairs libvmaf refused are skipped, saying why;
// the whole test skips where the set is absent.
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "gtest/gtest.h"
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

class PsnrFullReferenceSet : public ::testing::TestWithParam<std::string> {};

TEST_P(PsnrFullReferenceSet, EveryValueBitIdentical) {
  const Loaded* loaded = LoadedSet();
  if (loaded == nullptr) {
    GTEST_SKIP() << "full reference set not given (or without expected_metrics.json): pass "
                    "--test_env=SSIMD_REFERENCE_DIR=<directory>; the checked-in subset is "
                    "tested by psnr_reference_subset_test";
  }
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

INSTANTIATE_TEST_SUITE_P(Pairs, PsnrFullReferenceSet, ::testing::ValuesIn(PairIds()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

}  // namespace
}  // namespace ssimd::testing
