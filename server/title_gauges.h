// The latest pooled score per (title, feature) as gauges, for at most `max_titles` titles: titles
// are client-chosen and unbounded, and every one kept is a handful of series in every scrape, so
// the least recently updated title is dropped (and counted) when a new one would exceed the cap.
#ifndef SSIMD_SERVER_TITLE_GAUGES_H_
#define SSIMD_SERVER_TITLE_GAUGES_H_

#include <map>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "prometheus/counter.h"
#include "prometheus/family.h"
#include "prometheus/gauge.h"
#include "server/bounded_lru.h"

namespace ssimd {

class TitleGauges {
 public:
  // Longest title label kept, in bytes (longer titles are cut at a character boundary).
  static constexpr size_t kMaxTitleBytes = 128;
  // Features kept per title: a bound of its own, so a title cannot grow without limit either.
  static constexpr size_t kMaxFeaturesPerTitle = 8;

  // `scores` holds the gauges (labels title, feature); `evictions` counts dropped titles; `tracked`
  // shows how many titles are held. They must outlive this object. max_titles <= 0 keeps none.
  TitleGauges(prometheus::Family<prometheus::Gauge>& scores, prometheus::Counter& evictions,
              prometheus::Gauge& tracked, int max_titles);

  // Sets the gauge and marks the title most recently updated. An empty title or a feature name
  // that is not [a-z0-9_]{1,32} is ignored: neither names a series anyone can query.
  void Set(std::string_view title, std::string_view feature, double score);

  int size() const;

 private:
  using Gauges = std::map<std::string, prometheus::Gauge*>;  // by feature

  prometheus::Family<prometheus::Gauge>& scores_;
  prometheus::Counter& evictions_;
  prometheus::Gauge& tracked_;

  mutable absl::Mutex mu_;
  BoundedLru<Gauges> titles_ ABSL_GUARDED_BY(mu_);
};

}  // namespace ssimd

#endif  // SSIMD_SERVER_TITLE_GAUGES_H_
