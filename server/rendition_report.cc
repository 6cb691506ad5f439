#include "server/rendition_report.h"

#include <cmath>

namespace ssimd {
namespace {

// The low percentile the ladder view shows; ClipConfig's default percentiles include it.
constexpr double kLowPercentile = 5;

}  // namespace

double AverageBitrate(const MediaInfo& media, std::optional<uint64_t> frames, FrameRate rate) {
  double seconds = media.duration_seconds.value_or(0);
  // A container that states no usable duration falls back to the frames it holds.
  if (!(seconds > 0 && std::isfinite(seconds)) && frames.has_value() && *frames > 0 &&
      rate.known()) {
    seconds = static_cast<double>(*frames) * rate.den / rate.num;
  }
  if (!(seconds > 0) || !std::isfinite(seconds)) return 0;
  const double bitrate = static_cast<double>(media.size_bytes) * 8 / seconds;
  // A file may state an absurdly short duration; a gauge or a report of infinity helps no one.
  return std::isfinite(bitrate) ? bitrate : 0;
}

void DescribeRendition(const VideoInput& input, bool read_to_end, v1::RenditionSummary* summary) {
  const MediaInfo media = input.media_info();
  const std::optional<uint64_t> frames =
      read_to_end ? std::optional<uint64_t>(input.frames_read()) : input.EstimatedFrames();
  summary->set_codec(media.codec);
  summary->set_size_bytes(media.size_bytes);
  summary->set_width(static_cast<uint32_t>(media.width));
  summary->set_height(static_cast<uint32_t>(media.height));
  summary->set_bitrate_bits_per_second(AverageBitrate(media, frames, input.frame_rate()));
}

RenditionRecord ToRenditionRecord(const std::string& title, const v1::RenditionSummary& summary) {
  RenditionRecord record;
  record.title = title;
  record.rendition = summary.rendition();
  record.codec = summary.codec();
  record.width = static_cast<int>(summary.width());
  record.height = static_cast<int>(summary.height());
  record.bitrate_bits_per_second = summary.bitrate_bits_per_second();
  record.size_bytes = summary.size_bytes();
  for (const auto& [metric, pooled] : summary.summary().pooled()) {
    RenditionRecord::Pooled& out = record.pooled[metric];
    out.mean = pooled.mean();
    out.harmonic_mean = pooled.harmonic_mean();
    for (const v1::Percentile& p : pooled.percentiles()) {
      if (p.percentile() == kLowPercentile) out.p5 = p.value();
    }
  }
  return record;
}

}  // namespace ssimd
