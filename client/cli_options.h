// Command line of ssimd-score, modelled on libvmaf's `vmaf` CLI so that existing scripts carry
// over: -r/-d/-w/-h/-p/-b, repeated --feature name=opt=val:..., --json -o out.json, --precision,
// --frame_cnt, --frame_skip_ref/--frame_skip_dist; plus ssimd's --server and --backend.
#ifndef SSIMD_CLIENT_CLI_OPTIONS_H_
#define SSIMD_CLIENT_CLI_OPTIONS_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "client/json_report.h"
#include "client/ssimd_client.h"
#include "engine/picture.h"
#include "proto/ssimd/v1/ssimd.pb.h"

namespace ssimd {

struct CliOptions {
  std::string reference;
  std::string distorted;
  // Required for raw .yuv; taken from the header for .y4m (and checked when given).
  std::optional<int> width;
  std::optional<int> height;
  std::optional<int> bit_depth;
  std::optional<ChromaFormat> chroma;
  std::vector<std::string> features;  // libvmaf syntax; default: float_ssim
  bool json = false;
  std::string output;  // empty: stdout
  NumberFormat precision;
  uint64_t frame_cnt = 0;  // 0: all
  uint64_t frame_skip_ref = 0;
  uint64_t frame_skip_dist = 0;
  bool quiet = false;
  bool progress = true;
  ClientOptions client;
  v1::Backend backend = v1::BACKEND_AUTO;
  absl::Duration timeout = absl::Hours(1);
  std::string title;
  std::string rung;
  std::map<std::string, std::string> labels;
  std::vector<double> percentiles;
  // Let the server read the files (ScoreFiles): paths are relative to its files root.
  bool server_files = false;
  // A ladder instead of -r/-d: the server reads the source and each rendition (name, path) from
  // its files root; with `spread`, each rendition goes in a call of its own (to different
  // servers when --server names several).
  std::string ladder_source;
  std::vector<std::pair<std::string, std::string>> renditions;
  bool spread = false;
  bool help = false;
};

// INVALID_ARGUMENT naming the flag and the accepted values.
absl::StatusOr<CliOptions> ParseCliOptions(int argc, char** argv);

std::string CliUsage();

}  // namespace ssimd

#endif  // SSIMD_CLIENT_CLI_OPTIONS_H_
