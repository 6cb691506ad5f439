#include "tests/reference/full_metrics_set.h"

#include <iostream>
#include <utility>

#include "tests/reference/reference_dir.h"

namespace ssimd::testing {

const FullMetricsSet* LoadedFullMetricsSet() {
  static const FullMetricsSet* const loaded = []() -> const FullMetricsSet* {
    const std::string dir = FullReferenceDirectory();
    if (dir.empty()) return nullptr;
    auto set = LoadReferenceSet(dir);
    auto expected = LoadExpectedMetrics(dir);
    if (!set.ok() || !expected.ok()) {
      std::cerr << set.status() << " " << expected.status() << "\n";
      return nullptr;
    }
    return new FullMetricsSet{std::move(*set), std::move(*expected)};
  }();
  return loaded;
}

std::vector<std::string> FullMetricsPairIds() {
  std::vector<std::string> ids;
  if (const FullMetricsSet* loaded = LoadedFullMetricsSet(); loaded != nullptr) {
    for (const ReferencePair& p : loaded->set.pairs) ids.push_back(p.id);
  }
  if (ids.empty()) ids.push_back("reference_set_absent");
  return ids;
}

absl::StatusOr<FullMetricsPair> FindFullMetricsPair(const FullMetricsSet& set,
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
