// ssimd-score's ladder mode (--ladder_source, --rendition, --spread): one ScoreLadder call, or
// one per rendition spread over the servers of --server, written as one report.
#ifndef SSIMD_CLIENT_LADDER_CLI_H_
#define SSIMD_CLIENT_LADDER_CLI_H_

#include <cstdio>
#include <string>
#include <vector>

#include "client/cli_options.h"
#include "client/ssimd_client.h"
#include "proto/ssimd/v1/ssimd.pb.h"

namespace ssimd {

// The request the options describe; `config` carries features, backend and labels.
v1::ScoreLadderRequest LadderRequest(const CliOptions& options, const v1::ClipConfig& config);

// Every rendition's libvmaf-shaped report under its name (JSON), or a table per rendition.
std::string FormatLadderReport(const LadderReport& report, const ReportInfo& info, bool json,
                               const NumberFormat& format);

// Scores the ladder and writes the report to --output or `out`; the exit code (1 on failure,
// with the error on `err`).
int RunLadderCli(SsimdClient& client, const CliOptions& options, const v1::ClipConfig& config,
                 const std::vector<std::string>& metrics, std::FILE* out, std::FILE* err);

}  // namespace ssimd

#endif  // SSIMD_CLIENT_LADDER_CLI_H_
