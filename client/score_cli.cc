#include "client/score_cli.h"

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "base/status_macros.h"
#include "client/cli_options.h"
#include "client/clip_resume.h"
#include "client/json_report.h"
#include "client/ladder_cli.h"
#include "client/progress_bar.h"
#include "client/ssimd_client.h"
#include "engine/features.h"
#include "engine/io/frame_reader.h"
#include "proto/pixel_format.h"

namespace ssimd {
namespace {

// The geometry the flags give, complete or not at all.
absl::StatusOr<std::optional<Geometry>> FlagGeometry(const CliOptions& o) {
  const int given = o.width.has_value() + o.height.has_value() + o.bit_depth.has_value() +
                    o.chroma.has_value();
  if (given == 0) return std::optional<Geometry>();
  if (given != 4) {
    return absl::InvalidArgumentError(
        "-w, -h, -p and -b go together: give all four for raw .yuv files (or none for .y4m)");
  }
  return std::optional<Geometry>(Geometry{*o.width, *o.height, *o.bit_depth, *o.chroma});
}

v1::ClipConfig MakeConfig(const CliOptions& o) {
  v1::ClipConfig config;
  for (const std::string& f : o.features) config.mutable_features()->add_feature_args(f);
  config.set_backend(o.backend);
  config.set_title_id(o.title);
  config.set_rung(o.rung);
  for (const auto& [k, v] : o.labels) (*config.mutable_labels())[k] = v;
  for (double p : o.percentiles) config.add_percentiles(p);
  return config;
}

// The two videos, checked against each other and positioned at the first frame to score.
struct ClipFiles {
  std::unique_ptr<FrameReader> reference;
  std::unique_ptr<FrameReader> distorted;
};

// Opens both videos and skips to frame `first` of the clip (after --frame_skip_ref/_dist).
absl::StatusOr<ClipFiles> OpenClip(const CliOptions& o,
                                   const std::optional<Geometry>& flag_geometry, uint64_t first) {
  auto reference = FrameReader::Open(o.reference, flag_geometry);
  if (!reference.ok()) return reference.status();
  auto distorted = FrameReader::Open(o.distorted, flag_geometry);
  if (!distorted.ok()) return distorted.status();
  const Geometry& g = (*reference)->geometry();
  const Geometry& gd = (*distorted)->geometry();
  if (g.width != gd.width || g.height != gd.height || g.bit_depth != gd.bit_depth) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s is %dx%d %d-bit but %s is %dx%d %d-bit; both videos must match", o.reference,
        g.width, g.height, g.bit_depth, o.distorted, gd.width, gd.height, gd.bit_depth));
  }
  SSIMD_RETURN_IF_ERROR((*reference)->Skip(o.frame_skip_ref + first));
  SSIMD_RETURN_IF_ERROR((*distorted)->Skip(o.frame_skip_dist + first));
  return ClipFiles{*std::move(reference), *std::move(distorted)};
}

// Frame pairs from `files`, frame `first` of the clip on, up to --frame_cnt frames in all.
FramePairSource PairSource(const CliOptions& o, ClipFiles files, uint64_t first) {
  auto shared = std::make_shared<ClipFiles>(std::move(files));
  auto sent = std::make_shared<uint64_t>(first);
  return [&o, shared, sent](std::string* r, std::string* d) -> absl::StatusOr<bool> {
    if (o.frame_cnt > 0 && *sent >= o.frame_cnt) return false;
    auto got_r = shared->reference->ReadLuma(r);
    if (!got_r.ok()) return got_r.status();
    auto got_d = shared->distorted->ReadLuma(d);
    if (!got_d.ok()) return got_d.status();
    if (!*got_r || !*got_d) return false;  // as libvmaf: stop at the shorter video
    ++*sent;
    return true;
  };
}

absl::StatusOr<ClipReport> ScoreStreaming(SsimdClient& client, const CliOptions& o,
                                          const std::optional<Geometry>& flag_geometry,
                                          v1::ClipConfig config, std::FILE* err,
                                          bool show_progress) {
  auto files = OpenClip(o, flag_geometry, 0);
  if (!files.ok()) return files.status();
  const Geometry& g = files->reference->geometry();
  v1::Geometry* geometry = config.mutable_geometry();
  geometry->set_width(g.width);
  geometry->set_height(g.height);
  geometry->set_bit_depth(g.bit_depth);
  geometry->set_pixel_format(PixelFormatToProto(g.chroma));

  std::optional<uint64_t> total;
  auto ref_frames = files->reference->EstimatedFrames();
  auto dis_frames = files->distorted->EstimatedFrames();
  if (ref_frames.has_value() && dis_frames.has_value()) {
    total = std::min(*ref_frames - std::min(*ref_frames, o.frame_skip_ref),
                     *dis_frames - std::min(*dis_frames, o.frame_skip_dist));
  }
  if (o.frame_cnt > 0) total = total.has_value() ? std::min(*total, o.frame_cnt) : o.frame_cnt;
  ProgressBar bar(err, show_progress, total);

  // The first stream reads the files already open; a resumed one opens them again at its frame.
  std::optional<ClipFiles> opened = *std::move(files);
  auto open = [&](uint64_t first) -> absl::StatusOr<FramePairSource> {
    if (first == 0 && opened.has_value()) {
      ClipFiles files_now = *std::move(opened);
      opened.reset();
      return PairSource(o, std::move(files_now), 0);
    }
    auto reopened = OpenClip(o, flag_geometry, first);
    if (!reopened.ok()) return reopened.status();
    return PairSource(o, *std::move(reopened), first);
  };
  uint64_t received = 0;
  auto on_frame = [&](const v1::FrameResult&) { bar.Update(++received); };
  ResumeOptions resume;
  resume.on_resume = [&](uint64_t first, const absl::Status& cut) {
    if (o.quiet) return;
    std::fprintf(err, "ssimd-score: the stream was cut (%s); going on from frame %llu\n",
                 std::string(cut.message()).c_str(), static_cast<unsigned long long>(first));
  };
  auto report = ScoreClipResuming(client, config, open, on_frame, o.timeout, resume);
  bar.Finish(received);
  return report;
}

int Usage(std::FILE* err, const absl::Status& status) {
  std::fprintf(err, "ssimd-score: %s\nRun ssimd-score --help for the options.\n",
               std::string(status.message()).c_str());
  return 2;
}

}  // namespace

int RunScoreCli(int argc, char** argv, std::FILE* out, std::FILE* err) {
  auto options = ParseCliOptions(argc, argv);
  if (!options.ok()) return Usage(err, options.status());
  const CliOptions& o = *options;
  if (o.help) {
    std::fputs(CliUsage().c_str(), out);
    return 0;
  }
  auto features = ParseFeatureArgs(o.features);
  if (!features.ok()) return Usage(err, absl::InvalidArgumentError(absl::StrCat(
                                            "--feature: ", features.status().message())));
  auto flag_geometry = FlagGeometry(o);
  if (!flag_geometry.ok()) return Usage(err, flag_geometry.status());
  auto client = SsimdClient::Connect(o.client);
  if (!client.ok()) return Usage(err, client.status());

  const bool show_progress = o.progress && ::isatty(::fileno(err));
  v1::ClipConfig config = MakeConfig(o);
  if (!o.ladder_source.empty()) {
    if (flag_geometry->has_value()) {  // a raw .yuv source
      const Geometry& g = **flag_geometry;
      v1::Geometry* geometry = config.mutable_geometry();
      geometry->set_width(g.width);
      geometry->set_height(g.height);
      geometry->set_bit_depth(g.bit_depth);
      geometry->set_pixel_format(PixelFormatToProto(g.chroma));
    }
    return RunLadderCli(**client, o, config, MetricNames(*features), out, err);
  }
  const absl::Time start = absl::Now();
  absl::StatusOr<ClipReport> report;
  if (o.server_files) {
    if (o.frame_skip_ref != o.frame_skip_dist) {
      return Usage(err, absl::InvalidArgumentError(
                            "--server_files skips the same number of frames in both files; "
                            "give --frame_skip_ref and --frame_skip_dist equal values"));
    }
    v1::ScoreFilesRequest request;
    *request.mutable_config() = config;
    if (flag_geometry->has_value()) {
      const Geometry& g = **flag_geometry;
      v1::Geometry* geometry = request.mutable_config()->mutable_geometry();
      geometry->set_width(g.width);
      geometry->set_height(g.height);
      geometry->set_bit_depth(g.bit_depth);
      geometry->set_pixel_format(PixelFormatToProto(g.chroma));
    }
    request.set_reference_path(o.reference);
    request.set_distorted_path(o.distorted);
    request.set_start_frame(o.frame_skip_ref);
    request.set_frame_count(o.frame_cnt);
    ProgressBar bar(err, show_progress, o.frame_cnt > 0 ? std::optional<uint64_t>(o.frame_cnt)
                                                        : std::nullopt);
    uint64_t received = 0;
    report = (*client)->ScoreFiles(
        request, [&](const v1::FrameResult&) { bar.Update(++received); }, o.timeout);
    bar.Finish(received);
  } else {
    report = ScoreStreaming(**client, o, *flag_geometry, config, err, show_progress);
  }
  if (!report.ok()) {
    std::fprintf(err, "ssimd-score: %s: %s\n",
                 absl::StatusCodeToString(report.status().code()).c_str(),
                 std::string(report.status().message()).c_str());
    return 1;
  }
  const double seconds = absl::ToDoubleSeconds(absl::Now() - start);
  ReportInfo info;
  info.metrics = MetricNames(*features);
  info.fps = seconds > 0 ? static_cast<double>(report->frames.size()) / seconds : 0;
  info.server = o.client.target;
  const std::string text = o.json ? FormatJsonReport(*report, info, o.precision)
                                  : FormatTextReport(*report, info, o.precision);
  if (o.output.empty()) {
    std::fputs(text.c_str(), out);
    std::fflush(out);
  } else {
    std::ofstream file(o.output, std::ios::binary | std::ios::trunc);
    file << text;
    file.close();
    if (!file) {
      std::fprintf(err, "ssimd-score: cannot write %s\n", o.output.c_str());
      return 1;
    }
  }
  if (report->summary.fallback_frames() > 0 && !o.quiet) {
    std::string reason;
    for (const v1::FrameResult& f : report->frames) {
      if (!f.fallback_reason().empty()) {
        reason = f.fallback_reason();
        break;
      }
    }
    std::fprintf(err, "ssimd-score: %llu frame(s) were computed on the CPU: %s\n",
                 static_cast<unsigned long long>(report->summary.fallback_frames()),
                 reason.c_str());
  }
  return 0;
}

}  // namespace ssimd
