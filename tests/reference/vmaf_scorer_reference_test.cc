// libvmaf's vmaf and its integer features through the CPU scorer and the temporal finish, as the
// server's pipelines run them: the checked-in subset always, the full set where
// $SSIMD_REFERENCE_DIR names it. `vmaf` itself is compared where $SSIMD_VMAF_MODEL_DIR holds
// libvmaf's vmaf_v0.6.1; elsewhere a test model stands in and every feature is still compared.
#include <iostream>
#include <string>

#include "engine/cpu/cpu_scorer.h"
#include "engine/vmaf/test_model.h"
#include "gtest/gtest.h"
#include "tests/reference/full_metrics_set.h"
#include "tests/reference/vmaf_replay.h"

namespace ssimd::testing {
namespace {

struct Totals {
  int pairs = 0;
  int refused = 0;
  int64_t compared = 0;
};

void ReplaySet(const MetricsSet& set, Totals& totals) {
  std::shared_ptr<const VmafModel> model = ReferenceVmafModel();
  const bool libvmafs = model != nullptr;
  if (!libvmafs) model = SixFeatureTestModel();
  auto scorer = MakeCpuScorer();
  for (const ReferencePair& pair : set.set.pairs) {
    absl::StatusOr<VmafReplay> replay =
        ReplayVmafPair(pair, set.expected.at(pair.id), model, libvmafs, *scorer);
    ASSERT_TRUE(replay.ok()) << replay.status();
    for (const Mismatch& m : replay->report.mismatches) ADD_FAILURE() << pair.id << ": " << m.ToString();
    if (replay->refused) ++totals.refused;
    if (replay->report.compared > 0) ++totals.pairs;
    totals.compared += replay->report.compared;
  }
}

TEST(VmafScorerReference, CheckedInSubset) {
  const absl::StatusOr<MetricsSet> subset = LoadMetricsSubset();
  ASSERT_TRUE(subset.ok()) << subset.status();
  Totals totals;
  ReplaySet(*subset, totals);
  EXPECT_GE(totals.pairs, 10);
  EXPECT_GE(totals.refused, 10);
  if (ReferenceVmafModel() == nullptr) std::cout << VmafModelAbsent() << "\n";
  std::cout << totals.pairs << " pairs compared, " << totals.refused
            << " refused as libvmaf refuses them, " << totals.compared << " values\n";
}

TEST(VmafScorerReference, FullSet) {
  const MetricsSet* loaded = LoadedFullMetricsSet();
  if (loaded == nullptr) GTEST_SKIP() << FullMetricsSetAbsent("vmaf_scorer_reference_test");
  Totals totals;
  ReplaySet(*loaded, totals);
  EXPECT_GE(totals.pairs, 25);
  if (ReferenceVmafModel() == nullptr) std::cout << VmafModelAbsent() << "\n";
  std::cout << totals.pairs << " pairs compared, " << totals.refused
            << " refused as libvmaf refuses them, " << totals.compared << " values\n";
}

}  // namespace
}  // namespace ssimd::testing
