// The latest scored ladder of each title as gauges, one set per (title, rendition): pooled
// scores, bitrate, file size and an info series with the codec and the rendition's own size, for
// quality-against-bitrate views. Titles and rendition names are client-chosen, so both are
// bounded: at most `max_titles` titles (the cap of the per-title scores, applied to ladders on
// their own list) and `max_renditions_per_title` renditions in each; the least recently scored
// one is dropped to make room, and every drop is counted by reason.
#ifndef SSIMD_SERVER_LADDER_GAUGES_H_
#define SSIMD_SERVER_LADDER_GAUGES_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "prometheus/counter.h"
#include "prometheus/family.h"
#include "prometheus/gauge.h"
#include "server/bounded_lru.h"

namespace ssimd {

// What one scored rendition reports (RenditionSummary, without the protobuf).
struct RenditionRecord {
  std::string title;
  std::string rendition;
  std::string codec;
  int width = 0;
  int height = 0;
  double bitrate_bits_per_second = 0;
  uint64_t size_bytes = 0;
  struct Pooled {
    double mean = 0;
    double harmonic_mean = 0;
    std::optional<double> p5;  // when the request's percentiles include 5 (the default ones do)
  };
  std::map<std::string, Pooled> pooled;  // by metric name
};

// The series' families; they must outlive LadderGauges.
struct LadderFamilies {
  prometheus::Family<prometheus::Gauge>& score;      // title, rendition, feature, pool
  prometheus::Family<prometheus::Gauge>& bitrate;    // title, rendition; bytes per second
  prometheus::Family<prometheus::Gauge>& size;       // title, rendition
  prometheus::Family<prometheus::Gauge>& info;       // title, rendition, codec, width, height
  prometheus::Family<prometheus::Counter>& evictions;  // reason
  prometheus::Gauge& titles_tracked;
  prometheus::Gauge& renditions_tracked;
};

class LadderGauges {
 public:
  // Longest title and rendition labels kept, in bytes (cut at a character boundary).
  static constexpr size_t kMaxLabelBytes = 128;

  // Caps <= 0 keep nothing.
  LadderGauges(const LadderFamilies& families, int max_titles, int max_renditions_per_title);

  // Replaces the rendition's series with `record`'s and marks it (and its title) most recently
  // scored. A record without title or rendition name is ignored: no one could pick it. Only each
  // feature's headline metric (float_ssim, ssim, psnr_y, float_ms_ssim) is kept, each as mean,
  // harmonic_mean and p5.
  void Set(const RenditionRecord& record);

 private:
  // The series of one rendition, to remove them together.
  struct Series {
    std::vector<prometheus::Gauge*> scores;
    prometheus::Gauge* bitrate = nullptr;
    prometheus::Gauge* size = nullptr;
    prometheus::Gauge* info = nullptr;
  };
  using Renditions = BoundedLru<Series>;

  void Remove(const Series& series);
  void SetTrackedLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  LadderFamilies families_;
  prometheus::Counter& title_evictions_;
  prometheus::Counter& rendition_evictions_;
  const size_t max_renditions_per_title_;

  absl::Mutex mu_;
  // A title's renditions live in a BoundedLru of their own; std::optional because BoundedLru
  // makes new values by default construction and a capacity is needed.
  BoundedLru<std::optional<Renditions>> titles_ ABSL_GUARDED_BY(mu_);
};

}  // namespace ssimd

#endif  // SSIMD_SERVER_LADDER_GAUGES_H_
