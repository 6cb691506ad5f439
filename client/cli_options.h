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
#include "engine/scaler_choice.h"
#include "engine/picture.h"
#include "proto/ssimd/v1/ssimd.pb.h"

namespace ssimd {

enum class Transport {
  kAuto,         // server files when asked for, else uploads for encoded files, else frames
  kServerFiles,  // the server reads the paths below its --files_root
  kUpload,       // the files are uploaded to the server's spool first
  kFrames,       // decoded here, luma planes streamed (ScoreClip)
};

struct CliOptions {
  std::string reference;
  std::string distorted;
  std::vector<std::string> distorted_args;  // every -d as given
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
  // How the videos reach the server (--transport; --server_files is kServerFiles).
  Transport transport = Transport::kAuto;
  // How an encoded rendition is brought to the reference's size (--scaler, --accurate_rnd).
  ScalerChoice scaler;
  // A ladder (--ladder): `reference` is the source and each -d NAME=FILE a rendition; with
  // `spread`, each rendition goes in a call of its own (to different servers when --server names
  // several).
  bool ladder = false;
  std::vector<std::pair<std::string, std::string>> renditions;
  bool spread = false;
  bool help = false;
};

// INVALID_ARGUMENT naming the flag and the accepted values.
absl::StatusOr<CliOptions> ParseCliOptions(int argc, char** argv);

std::string CliUsage();

}  // namespace ssimd

#endif  // SSIMD_CLIENT_CLI_OPTIONS_H_
