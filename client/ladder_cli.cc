#include "client/ladder_cli.h"

#include <fstream>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "client/json_report.h"
#include "client/ladder_spread.h"

namespace ssimd {

v1::ScoreLadderRequest LadderRequest(const CliOptions& o, const v1::ClipConfig& config) {
  v1::ScoreLadderRequest request;
  *request.mutable_config() = config;
  request.set_source_path(o.ladder_source);
  request.set_source_start_frame(o.frame_skip_ref);
  request.set_frame_count(o.frame_cnt);
  for (const auto& [name, path] : o.renditions) {
    v1::Rendition* rendition = request.add_renditions();
    rendition->set_name(name);
    rendition->set_path(path);
  }
  return request;
}

std::string FormatLadderReport(const LadderReport& report, const ReportInfo& info, bool json,
                               const NumberFormat& format) {
  std::string text;
  if (!json) {
    for (const auto& [name, clip] : report.renditions) {
      absl::StrAppend(&text, "== rendition ", name, "\n", FormatTextReport(clip, info, format));
    }
    return text;
  }
  text = "{\n  \"renditions\": {";
  const char* separator = "\n";
  for (const auto& [name, clip] : report.renditions) {
    // Rendition names are the caller's own labels; the server checked they are printable.
    absl::StrAppend(&text, separator, "    \"", name, "\": ",
                    absl::StripTrailingAsciiWhitespace(FormatJsonReport(clip, info, format)));
    separator = ",\n";
  }
  absl::StrAppend(&text, "\n  },\n  \"ladder\": {\"renditions\": ", report.ladder.renditions(),
                  ", \"source_frames\": ", report.ladder.source_frames(), "}\n}\n");
  return text;
}

int RunLadderCli(SsimdClient& client, const CliOptions& o, const v1::ClipConfig& config,
                 const std::vector<std::string>& metrics, std::FILE* out, std::FILE* err) {
  const v1::ScoreLadderRequest request = LadderRequest(o, config);
  const absl::Time start = absl::Now();
  absl::StatusOr<LadderReport> report = o.spread
                                            ? ScoreLadderSpread(client, request, o.timeout)
                                            : client.ScoreLadder(request, o.timeout);
  if (!report.ok()) {
    std::fprintf(err, "ssimd-score: %s: %s\n",
                 absl::StatusCodeToString(report.status().code()).c_str(),
                 std::string(report.status().message()).c_str());
    return 1;
  }
  ReportInfo info;
  info.metrics = metrics;
  const double seconds = absl::ToDoubleSeconds(absl::Now() - start);
  info.fps = seconds > 0 ? static_cast<double>(report->ladder.source_frames()) / seconds : 0;
  info.server = o.client.target;
  const std::string text = FormatLadderReport(*report, info, o.json, o.precision);
  if (o.output.empty()) {
    std::fputs(text.c_str(), out);
    std::fflush(out);
    return 0;
  }
  std::ofstream file(o.output, std::ios::binary | std::ios::trunc);
  file << text;
  file.close();
  if (!file) {
    std::fprintf(err, "ssimd-score: cannot write %s\n", o.output.c_str());
    return 1;
  }
  return 0;
}

}  // namespace ssimd
