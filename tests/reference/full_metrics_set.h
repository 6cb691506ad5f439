// Reference sets with upstream's expected_metrics.json: the checked-in subset, and the full set
// (external data named by $SSIMD_REFERENCE_DIR), loaded once per test binary, for the
// parameterized replays of each metric (one test per pair, so that shards split the set).
#ifndef SSIMD_TESTS_REFERENCE_FULL_METRICS_SET_H_
#define SSIMD_TESTS_REFERENCE_FULL_METRICS_SET_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tests/reference/psnr_replay.h"
#include "tests/reference/reference_set.h"

namespace ssimd::testing {

// A reference set with its expected_metrics.json: every pair has an entry.
struct MetricsSet {
  ReferenceSet set;
  std::map<std::string, ExpectedMetrics> expected;
};

// The set in `dir`; NOT_FOUND naming the first pair without an entry in expected_metrics.json.
absl::StatusOr<MetricsSet> LoadMetricsSet(const std::string& dir);

// The checked-in subset (tests/data/reference), which every test run has.
absl::StatusOr<MetricsSet> LoadMetricsSubset();

// The set, or null where $SSIMD_REFERENCE_DIR names none (or one without expected_metrics.json).
const MetricsSet* LoadedFullMetricsSet();

// The ids of its pairs, to instantiate tests with; one placeholder id where the set is absent
// (its test then skips, saying so).
std::vector<std::string> FullMetricsPairIds();

// One pair of the set and its entry in expected_metrics.json.
struct FullMetricsPair {
  const ReferencePair* pair = nullptr;
  const ExpectedMetrics* expected = nullptr;
};
// The pair `id` of `set`; NOT_FOUND naming what is missing.
absl::StatusOr<FullMetricsPair> FindFullMetricsPair(const MetricsSet& set,
                                                    const std::string& id);

// Why a test skips where the set is absent, pointing at `subset_test`, which always runs.
std::string FullMetricsSetAbsent(const std::string& subset_test);

}  // namespace ssimd::testing

#endif  // SSIMD_TESTS_REFERENCE_FULL_METRICS_SET_H_
