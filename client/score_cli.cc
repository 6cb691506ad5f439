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
#include "client/frames_transport.h"
#include "client/json_report.h"
#include "client/ladder_cli.h"
#include "client/local_decoding_program.h"
#include "client/progress_bar.h"
#include "client/ssimd_client.h"
#include "client/transport.h"
#include "engine/features.h"
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

// The ScoreFiles request for inputs the server reads itself: `reference` and `distorted` name
// them as the server knows them (paths below its files root, or upload ids).
v1::ScoreFilesRequest FilesRequest(const CliOptions& o, const v1::ClipConfig& config,
                                   const std::string& reference, const std::string& distorted) {
  v1::ScoreFilesRequest request;
  *request.mutable_config() = config;
  request.set_reference_path(reference);
  request.set_distorted_path(distorted);
  request.set_reference_start_frame(o.frame_skip_ref);
  request.set_distorted_start_frame(o.frame_skip_dist);
  request.set_frame_count(o.frame_cnt);
  *request.mutable_upscale() = UpscaleProto(o.scaler);
  return request;
}

int Usage(std::FILE* err, const absl::Status& status) {
  std::fprintf(err, "ssimd-score: %s\nRun ssimd-score --help for the options.\n",
               std::string(status.message()).c_str());
  return 2;
}

int Fail(std::FILE* err, const absl::Status& status) {
  std::fprintf(err, "ssimd-score: %s: %s\n", absl::StatusCodeToString(status.code()).c_str(),
               std::string(status.message()).c_str());
  return 1;
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
  // A raw .yuv source's geometry; encoded and .y4m files state their own.
  if (flag_geometry->has_value()) *config.mutable_geometry() = GeometryToProto(**flag_geometry);
  std::vector<std::string> files = {o.reference};
  if (o.ladder) {
    for (const auto& [name, path] : o.renditions) files.push_back(path);
  } else {
    files.push_back(o.distorted);
  }
  const absl::Time start = absl::Now();
  absl::StatusOr<ServerInputs> inputs = PrepareServerInputs(**client, o, files, err);
  if (!inputs.ok()) return Fail(err, inputs.status());
  if (inputs->transport == Transport::kFrames && !DecodesLocalFiles()) {
    return RunLocalDecodingProgram(argc, argv, err);
  }
  if (o.ladder) {
    return RunLadderCli(**client, o, *inputs, *flag_geometry, config, MetricNames(*features), out,
                        err);
  }
  absl::StatusOr<ClipReport> report;
  if (inputs->transport == Transport::kFrames) {
    report = ScoreLocalFrames(**client, o, o.reference, o.distorted, *flag_geometry, config, err,
                              show_progress);
  } else {
    ProgressBar bar(err, show_progress, o.frame_cnt > 0 ? std::optional<uint64_t>(o.frame_cnt)
                                                        : std::nullopt);
    uint64_t received = 0;
    report = (*client)->ScoreFiles(FilesRequest(o, config, inputs->names[0], inputs->names[1]),
                                   [&](const v1::FrameResult&) { bar.Update(++received); },
                                   o.timeout);
    bar.Finish(received);
  }
  if (!report.ok()) return Fail(err, report.status());
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
