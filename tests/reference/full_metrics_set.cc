#include "tests/reference/full_metrics_set.h"

#include <iostream>
#include <utility>

#include "tests/reference/reference_dir.h"

namespace ssimd::testing {

absl::StatusOr<MetricsSet> LoadMetricsSet(const std::string& dir) {
  absl::StatusOr<ReferenceSet> set = LoadReferenceSet(dir);
  if (!set.ok()) return set.status();
  absl::StatusOr<std::map<std::string, ExpectedMetrics>> expected = LoadExpectedMetrics(dir);
  if (!expected.ok()) return expected.status();
  for (const ReferencePair& pair : set->pairs) {
    if (expected->count(pair.id) == 0) {
      return absl::NotFoundError(pair.id + " has no entry in " + dir + "/expected_metrics.json");
    }
  }
  return MetricsSet{*std::move(set), *std::move(expected)};
}

absl::StatusOr<MetricsSet> LoadMetricsSubset() {
  return LoadMetricsSet(RunfilePath("tests/data/reference"));
}

const MetricsSet* LoadedFullMetricsSet() {
  static const MetricsSet* const loaded = []() -> const MetricsSet* {
    const std::string dir = FullReferenceDirectory();
    if (dir.empty()) return nullptr;
    absl::StatusOr<MetricsSet> set = LoadMetricsSet(dir);
    if (!set.ok()) {
      std::cerr << set.status() << "\n";
      return nullptr;
    }
    return new MetricsSet(*std::move(set));
  }();
  return loaded;
}

std::vector<std::string> FullMetricsPairIds() {
  std::vector<std::string> ids;
  if (const MetricsSet* loaded = LoadedFullMetricsSet(); loaded != nullptr) {
    for (const ReferencePair& p : loaded->set.pairs) ids.push_back(p.id);
  }
  if (ids.empty()) ids.push_back("reference_set_absent");
  return ids;
}

absl::StatusOr<FullMetricsPair> FindFullMetricsPair(const MetricsSet& set,
                                                    const std::string& id) {
  FullMetricsPair out;
  for (const ReferencePair& p : set.set.pairs) {
    if (p.id == id) out.pair = &p;
  }
  if (out.pair == nullptr) return absl::NotFoundError("no pair " + id + " in the set");
  const auto entry = set.expected.find(id);
  if (entry == set.expected.end()) {
    return absl::NotFoundError("no entry for " + id + " in expected_metrics.json");
  }
  out.expected = &entry->second;
  return out;
}

std::string FullMetricsSetAbsent(const std::string& subset_test) {
  return "full reference set not given (or without expected_metrics.json): pass "
         "--test_env=SSIMD_REFERENCE_DIR=<directory>; the checked-in subset is tested by " +
         subset_test;
}

}  // namespace ssimd::testing
