#include "client/clip_resume.h"

#include <map>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "proto/clip_accumulator.h"

namespace ssimd {
namespace {

// The percentiles the server pooled with: the same list for every metric of a summary.
std::vector<double> PercentilesOf(const v1::ClipSummary& summary) {
  std::vector<double> out;
  if (summary.pooled().empty()) return out;
  for (const v1::Percentile& p : summary.pooled().begin()->second.percentiles()) {
    out.push_back(p.percentile());
  }
  return out;
}

absl::Status Interrupted(const absl::Status& last, uint64_t scored) {
  const std::string which =
      scored == 0 ? "no frame was scored"
                  : absl::StrCat("frames 0 to ", scored - 1, " were scored");
  return absl::UnavailableError(absl::StrCat(last.message(), " (", which,
                                             "; the clip can go on from frame ", scored, ")"));
}

}  // namespace

v1::ClipSummary SummarizeFrames(const std::vector<v1::FrameResult>& frames,
                                const std::vector<double>& percentiles) {
  ClipAccumulator accumulator;
  for (const v1::FrameResult& frame : frames) {
    accumulator.Add(FrameScores(frame.scores().begin(), frame.scores().end()),
                    FrameSums(frame.sums().begin(), frame.sums().end()), frame.backend(),
                    !frame.fallback_reason().empty());
  }
  v1::ClipSummary summary;
  accumulator.FillSummary(percentiles, &summary);
  return summary;
}

absl::StatusOr<ClipReport> ScoreClipResuming(SsimdClient& client, const v1::ClipConfig& config,
                                             const FrameSourceOpener& open,
                                             const FrameCallback& on_frame,
                                             absl::Duration timeout,
                                             const ResumeOptions& options) {
  const absl::Time deadline = absl::Now() + timeout;
  std::vector<v1::FrameResult> frames;
  absl::Status last = absl::UnavailableError("no stream was tried");
  for (int stream = 0; stream < options.max_streams; ++stream) {
    const uint64_t first = frames.size();
    if (stream > 0) {
      if (options.on_resume) options.on_resume(first, last);
      // Waiting on the channel (not sleeping) lets it see the lost server go and others come.
      client.LetServersConnect(options.pause * stream);
    }
    auto source = open(first);
    if (!source.ok()) return source.status();
    // Results come in frame order, so those of a cut stream are a prefix of its frames; they are
    // kept as they arrive, renumbered to their place in the clip.
    auto keep = [&](const v1::FrameResult& result) {
      v1::FrameResult frame = result;
      frame.set_index(first + result.index());
      if (on_frame) on_frame(frame);
      frames.push_back(std::move(frame));
    };
    auto report = client.ScoreClip(config, *source, keep, deadline - absl::Now());
    if (report.ok()) {
      if (stream == 0) {
        report->frames = std::move(frames);
        return report;
      }
      ClipReport merged;
      merged.summary = SummarizeFrames(frames, PercentilesOf(report->summary));
      merged.summary.set_elapsed_seconds(report->summary.elapsed_seconds());
      merged.frames = std::move(frames);
      return merged;
    }
    if (report.status().code() != absl::StatusCode::kUnavailable) return report.status();
    last = report.status();
    if (absl::Now() >= deadline) break;
  }
  return Interrupted(last, frames.size());
}

}  // namespace ssimd
