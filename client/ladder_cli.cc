#include "client/ladder_cli.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "client/frames_transport.h"
#include "client/ladder_spread.h"
#include "json/json_text.h"

namespace ssimd {
namespace {

absl::Status WriteFile(const std::string& path, const std::string& text) {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file << text;
  file.close();
  if (!file) return absl::PermissionDeniedError(absl::StrCat("cannot write ", path));
  return absl::OkStatus();
}

absl::Status MakeDirectory(const std::string& path) {
  if (::mkdir(path.c_str(), 0755) == 0 || errno == EEXIST) {
    struct stat st;
    if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) return absl::OkStatus();
    return absl::FailedPreconditionError(absl::StrCat(
        "-o ", path, ": a ladder writes one report per rendition into a directory, and this is "
        "a file"));
  }
  const int error = errno;
  return absl::PermissionDeniedError(
      absl::StrCat("-o ", path, ": cannot create the directory: ", std::strerror(error)));
}

// Each rendition scored from frames decoded here, one ScoreClip after the other.
absl::StatusOr<LadderReport> ScoreLadderFromFrames(SsimdClient& client, const CliOptions& o,
                                                   const std::optional<Geometry>& raw_geometry,
                                                   const v1::ClipConfig& config, std::FILE* err) {
  LadderReport report;
  uint64_t source_frames = 0;
  for (const auto& [name, path] : o.renditions) {
    v1::ClipConfig rung = config;
    rung.set_rung(name);
    absl::StatusOr<ClipReport> clip =
        ScoreLocalFrames(client, o, o.reference, path, raw_geometry, rung, err, false);
    if (!clip.ok()) {
      return absl::Status(clip.status().code(),
                          absl::StrCat("rendition ", name, ": ", clip.status().message()));
    }
    source_frames = std::max<uint64_t>(source_frames, clip->frames.size());
    report.renditions[name] = *std::move(clip);
  }
  report.ladder.set_renditions(static_cast<uint32_t>(o.renditions.size()));
  report.ladder.set_source_frames(source_frames);
  return report;
}

std::string PooledCell(const v1::ClipSummary& summary, const std::string& metric,
                       const NumberFormat& format) {
  auto it = summary.pooled().find(metric);
  if (it == summary.pooled().end()) return "-";
  const v1::PooledScore& pooled = it->second;
  std::string cell = absl::StrCat(JsonNumber(pooled.mean(), format), " / ",
                                  JsonNumber(pooled.harmonic_mean(), format));
  if (pooled.percentiles_size() > 0) {
    const v1::Percentile& low = *std::min_element(
        pooled.percentiles().begin(), pooled.percentiles().end(),
        [](const v1::Percentile& a, const v1::Percentile& b) {
          return a.percentile() < b.percentile();
        });
    absl::StrAppend(&cell, " / p", JsonNumber(low.percentile(), NumberFormat()), " ",
                    JsonNumber(low.value(), format));
  }
  return cell;
}

}  // namespace

v1::ScoreLadderRequest LadderRequest(const CliOptions& o, const v1::ClipConfig& config,
                                     const std::vector<std::string>& names) {
  v1::ScoreLadderRequest request;
  *request.mutable_config() = config;
  request.set_source_path(names.at(0));
  request.set_source_start_frame(o.frame_skip_ref);
  request.set_frame_count(o.frame_cnt);
  *request.mutable_upscale() = UpscaleProto(o.scaler);
  for (size_t i = 0; i < o.renditions.size(); ++i) {
    v1::Rendition* rendition = request.add_renditions();
    rendition->set_name(o.renditions[i].first);
    rendition->set_path(names.at(i + 1));
    rendition->set_start_frame(o.frame_skip_dist);
  }
  return request;
}

std::string FormatLadderJson(const LadderReport& report, const ReportInfo& info,
                             const NumberFormat& format) {
  std::string text = "{\n  \"renditions\": {";
  const char* separator = "\n";
  for (const auto& [name, clip] : report.renditions) {
    absl::StrAppend(&text, separator, "    ", JsonQuoted(name), ": ",
                    absl::StripTrailingAsciiWhitespace(FormatJsonReport(clip, info, format)));
    separator = ",\n";
  }
  absl::StrAppend(&text, "\n  },\n  \"ladder\": {\"renditions\": ", report.ladder.renditions(),
                  ", \"source_frames\": ", report.ladder.source_frames(), "}\n}\n");
  return text;
}

std::string FormatLadderTable(const LadderReport& report, const std::vector<std::string>& metrics,
                              const NumberFormat& format) {
  std::string text = absl::StrFormat("%-24s %8s %10s %10s", "rendition", "frames",
                                     "unmatch-src", "unmatch-dis");
  for (const std::string& metric : metrics) {
    absl::StrAppend(&text, "  ", metric, " (mean / harmonic mean [/ low percentile])");
  }
  text += "\n";
  for (const auto& [name, clip] : report.renditions) {
    const v1::ClipSummary& s = clip.summary;
    absl::StrAppend(&text, absl::StrFormat("%-24s %8d %10d %10d", name, s.frames(),
                                           s.unmatched_reference_frames(),
                                           s.unmatched_distorted_frames()));
    for (const std::string& metric : metrics) {
      absl::StrAppend(&text, "  ", PooledCell(s, metric, format));
    }
    text += "\n";
  }
  return text;
}

std::string RenditionReportFile(const std::string& directory, const std::string& rendition,
                                bool json) {
  std::string file = rendition;
  for (char& c : file) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-' && c != '_') {
      c = '_';
    }
  }
  if (file.empty() || file[0] == '.') file.insert(0, "_");
  return absl::StrCat(directory, "/", file, json ? ".json" : ".txt");
}

int RunLadderCli(SsimdClient& client, const CliOptions& o, const ServerInputs& inputs,
                 const std::optional<Geometry>& raw_geometry, const v1::ClipConfig& config,
                 const std::vector<std::string>& metrics, std::FILE* out, std::FILE* err) {
  auto fail = [err](const absl::Status& status) {
    std::fprintf(err, "ssimd-score: %s: %s\n", absl::StatusCodeToString(status.code()).c_str(),
                 std::string(status.message()).c_str());
    return 1;
  };
  if (!o.output.empty()) {
    if (absl::Status made = MakeDirectory(o.output); !made.ok()) return fail(made);
  }
  const absl::Time start = absl::Now();
  absl::StatusOr<LadderReport> report;
  if (inputs.transport == Transport::kFrames) {
    report = ScoreLadderFromFrames(client, o, raw_geometry, config, err);
  } else {
    const v1::ScoreLadderRequest request = LadderRequest(o, config, inputs.names);
    report = o.spread ? ScoreLadderSpread(client, request, o.timeout)
                      : client.ScoreLadder(request, o.timeout);
  }
  if (!report.ok()) return fail(report.status());
  ReportInfo info;
  info.metrics = metrics;
  const double seconds = absl::ToDoubleSeconds(absl::Now() - start);
  info.fps = seconds > 0 ? static_cast<double>(report->ladder.source_frames()) / seconds : 0;
  info.server = o.client.target;
  if (o.output.empty() && o.json) {
    std::fputs(FormatLadderJson(*report, info, o.precision).c_str(), out);
    std::fflush(out);
    return 0;
  }
  for (const auto& [name, clip] : report->renditions) {
    if (o.output.empty()) break;
    const std::string text = o.json ? FormatJsonReport(clip, info, o.precision)
                                    : FormatTextReport(clip, info, o.precision);
    if (absl::Status written = WriteFile(RenditionReportFile(o.output, name, o.json), text);
        !written.ok()) {
      return fail(written);
    }
  }
  std::fputs(FormatLadderTable(*report, metrics, o.precision).c_str(), out);
  std::fflush(out);
  return 0;
}

}  // namespace ssimd
