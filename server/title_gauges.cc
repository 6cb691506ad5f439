#include "server/title_gauges.h"

#include <utility>
#include <vector>

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
      titles_(max_titles > 0 ? static_cast<size_t>(max_titles) : 0) {}

void TitleGauges::Set(std::string_view title, std::string_view feature, double score) {
  if (!IsFeatureName(feature)) return;
  std::string label = ValidUtf8(title, kMaxTitleBytes);
  if (label.empty()) return;

  absl::MutexLock lock(&mu_);
  std::vector<std::pair<std::string, Gauges>> evicted;
  Gauges* gauges = titles_.Touch(label, &evicted);
  for (auto& [dropped, dropped_gauges] : evicted) {
    for (auto& [name, gauge] : dropped_gauges) scores_.Remove(gauge);
    evictions_.Increment();
  }
  if (gauges == nullptr) return;  // a cap of 0 keeps no title
  auto gauge = gauges->find(std::string(feature));
  if (gauge == gauges->end()) {
    if (gauges->size() >= kMaxFeaturesPerTitle) return;
    prometheus::Gauge& added = scores_.Add({{"title", label}, {"feature", std::string(feature)}});
    gauge = gauges->emplace(std::string(feature), &added).first;
  }
  gauge->second->Set(score);
  tracked_.Set(static_cast<double>(titles_.size()));
}

int TitleGauges::size() const {
  absl::MutexLock lock(&mu_);
  return static_cast<int>(titles_.size());
}

}  // namespace ssimd
