#include "server/title_gauges.h"

#include "absl/strings/ascii.h"
#include "server/utf8.h"

namespace ssimd {
namespace {

bool IsFeatureName(std::string_view feature) {
  constexpr size_t kMaxBytes = 32;
  if (feature.empty() || feature.size() > kMaxBytes) return false;
  for (char c : feature) {
    const bool ok = absl::ascii_islower(static_cast<unsigned char>(c)) ||
                    absl::ascii_isdigit(static_cast<unsigned char>(c)) || c == '_';
    if (!ok) return false;
  }
  return true;
}

}  // namespace

TitleGauges::TitleGauges(prometheus::Family<prometheus::Gauge>& scores,
                         prometheus::Counter& evictions, prometheus::Gauge& tracked,
                         int max_titles)
    : scores_(scores),
      evictions_(evictions),
      tracked_(tracked),
      max_titles_(max_titles > 0 ? static_cast<size_t>(max_titles) : 0) {}

void TitleGauges::Set(std::string_view title, std::string_view feature, double score) {
  if (max_titles_ == 0 || !IsFeatureName(feature)) return;
  std::string label = ValidUtf8(title, kMaxTitleBytes);
  if (label.empty()) return;

  absl::MutexLock lock(&mu_);
  auto it = entries_.find(label);
  if (it == entries_.end()) {
    while (entries_.size() >= max_titles_) EvictOldestLocked();
    order_.push_front(label);
    it = entries_.emplace(label, Entry{order_.begin(), {}}).first;
  } else {
    order_.splice(order_.begin(), order_, it->second.position);
  }
  Entry& entry = it->second;
  auto gauge = entry.gauges.find(std::string(feature));
  if (gauge == entry.gauges.end()) {
    if (entry.gauges.size() >= kMaxFeaturesPerTitle) return;
    prometheus::Gauge& added = scores_.Add({{"title", label}, {"feature", std::string(feature)}});
    gauge = entry.gauges.emplace(std::string(feature), &added).first;
  }
  gauge->second->Set(score);
  tracked_.Set(static_cast<double>(entries_.size()));
}

int TitleGauges::size() const {
  absl::MutexLock lock(&mu_);
  return static_cast<int>(entries_.size());
}

void TitleGauges::EvictOldestLocked() {
  const std::string& oldest = order_.back();
  auto it = entries_.find(oldest);
  for (auto& [feature, gauge] : it->second.gauges) scores_.Remove(gauge);
  entries_.erase(it);
  order_.pop_back();
  evictions_.Increment();
}

}  // namespace ssimd
