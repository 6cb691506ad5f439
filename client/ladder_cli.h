// ssimd-score's ladder mode (--ladder -r SRC -d NAME=FILE ..., --spread): one ScoreLadder call,
// one per rendition spread over the servers of --server, or, with the frames transport, one
// ScoreClip per rendition decoded here. Writes one libvmaf-shaped report per rendition (-o DIR)
// and a table of the renditions on stdout, or with --json and no -o every report in one document
// on stdout.
#ifndef SSIMD_CLIENT_LADDER_CLI_H_
#define SSIMD_CLIENT_LADDER_CLI_H_

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "client/cli_options.h"
#include "client/json_report.h"
#include "client/ssimd_client.h"
#include "client/transport.h"
#include "engine/picture.h"
#include "proto/ssimd/v1/ssimd.pb.h"

namespace ssimd {

// The request the options describe for server-side inputs (`names`: the source first, then
// each rendition, as the server knows them); `config` carries features, backend and labels.
v1::ScoreLadderRequest LadderRequest(const CliOptions& options, const v1::ClipConfig& config,
                                     const std::vector<std::string>& names);

// Every rendition's libvmaf-shaped report under its name, and the ladder's summary, as one JSON
// document.
std::string FormatLadderJson(const LadderReport& report, const ReportInfo& info,
                             const NumberFormat& format);

// One line per rendition: frames, unmatched frames and each metric's pooled mean, harmonic
// mean and lowest requested percentile.
std::string FormatLadderTable(const LadderReport& report, const std::vector<std::string>& metrics,
                              const NumberFormat& format);

// The file a rendition's report goes to below --output: its name with anything but letters,
// digits, '.', '-' and '_' replaced, so that no name leaves the directory.
std::string RenditionReportFile(const std::string& directory, const std::string& rendition,
                                bool json);

// Scores the ladder and writes the reports; the exit code (1 on failure, with the error on
// `err`).
int RunLadderCli(SsimdClient& client, const CliOptions& options, const ServerInputs& inputs,
                 const std::optional<Geometry>& raw_geometry, const v1::ClipConfig& config,
                 const std::vector<std::string>& metrics, std::FILE* out, std::FILE* err);

}  // namespace ssimd

#endif  // SSIMD_CLIENT_LADDER_CLI_H_
