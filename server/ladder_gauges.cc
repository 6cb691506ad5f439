#include "server/ladder_gauges.h"

#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"
#include "engine/feature_table.h"
#include "server/metric_labels.h"
#include "server/utf8.h"

namespace ssimd {
namespace {

// Each feature's headline metric (the first of its outputs: float_ssim, ssim, psnr_y,
// float_ms_ssim) in three pools: enough for a quality-against-bitrate view without a series per
// percentile, per-scale term or chroma plane.
bool IsLadderFeature(const std::string& name) {
  for (const FeatureDescription& feature : FeatureTable()) {
    if (feature.outputs.front() == name) return true;
  }
  return false;
}

size_t Cap(int value) { return value > 0 ? static_cast<size_t>(value) : 0; }

}  // namespace

LadderGauges::LadderGauges(const LadderFamilies& families, int max_titles,
                           int max_renditions_per_title)
    : families_(families),
      title_evictions_(families.evictions.Add({{"reason", "title_cap"}})),
      rendition_evictions_(families.evictions.Add({{"reason", "rendition_cap"}})),
      max_renditions_per_title_(Cap(max_renditions_per_title)),
      titles_(Cap(max_titles)) {}

void LadderGauges::Remove(const Series& series) {
  for (prometheus::Gauge* gauge : series.scores) families_.score.Remove(gauge);
  if (series.bitrate != nullptr) families_.bitrate.Remove(series.bitrate);
  if (series.size != nullptr) families_.size.Remove(series.size);
  if (series.info != nullptr) families_.info.Remove(series.info);
}

void LadderGauges::Set(const RenditionRecord& record) {
  const std::string title = ValidUtf8(record.title, kMaxLabelBytes);
  const std::string rendition = ValidUtf8(record.rendition, kMaxLabelBytes);
  if (title.empty() || rendition.empty() || max_renditions_per_title_ == 0) return;

  absl::MutexLock lock(&mu_);
  std::vector<std::pair<std::string, std::optional<Renditions>>> dropped_titles;
  std::optional<Renditions>* renditions = titles_.Touch(title, &dropped_titles);
  for (auto& [name, dropped] : dropped_titles) {
    if (dropped.has_value()) {
      for (const auto& [rung, series] : dropped->entries()) Remove(series);
    }
    title_evictions_.Increment();
  }
  if (renditions == nullptr) return;  // a title cap of 0 keeps none
  if (!renditions->has_value()) renditions->emplace(max_renditions_per_title_);

  std::vector<std::pair<std::string, Series>> dropped_renditions;
  Series* series = (*renditions)->Touch(rendition, &dropped_renditions);
  for (auto& [name, dropped] : dropped_renditions) {
    Remove(dropped);
    rendition_evictions_.Increment();
  }
  // A rendition scored again may have other features or another codec than before: its old
  // series go, so none of them outlives the ladder that set it.
  Remove(*series);
  *series = Series();

  const prometheus::Labels rung = {{"title", title}, {"rendition", rendition}};
  for (const auto& [feature, pooled] : record.pooled) {
    if (!IsLadderFeature(feature)) continue;
    const std::pair<const char*, std::optional<double>> pools[] = {
        {"mean", pooled.mean}, {"harmonic_mean", pooled.harmonic_mean}, {"p5", pooled.p5}};
    for (const auto& [pool, value] : pools) {
      if (!value.has_value()) continue;
      prometheus::Labels labels = rung;
      labels.emplace("feature", feature);
      labels.emplace("pool", pool);
      prometheus::Gauge& gauge = families_.score.Add(labels);
      gauge.Set(*value);
      series->scores.push_back(&gauge);
    }
  }
  series->bitrate = &families_.bitrate.Add(rung);
  // Bytes, Prometheus's base unit; dividing by 8 is exact, so bits come back exactly too.
  series->bitrate->Set(record.bitrate_bits_per_second / 8);
  series->size = &families_.size.Add(rung);
  series->size->Set(static_cast<double>(record.size_bytes));
  prometheus::Labels info = rung;
  info.emplace("codec", CodecLabel(record.codec));
  info.emplace("width", absl::StrCat(record.width));
  info.emplace("height", absl::StrCat(record.height));
  series->info = &families_.info.Add(info);
  series->info->Set(1);
  SetTrackedLocked();
}

void LadderGauges::SetTrackedLocked() {
  size_t renditions = 0;
  for (const auto& [title, rungs] : titles_.entries()) {
    if (rungs.has_value()) renditions += rungs->size();
  }
  families_.titles_tracked.Set(static_cast<double>(titles_.size()));
  families_.renditions_tracked.Set(static_cast<double>(renditions));
}

}  // namespace ssimd
