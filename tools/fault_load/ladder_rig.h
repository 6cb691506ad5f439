// Everything the ladder kinds need for a run, made once before the load: the files below the
// server's files root with their expected scores, the slow HTTP server for URL renditions, what
// the plans may draw, and the caller that runs the calls.
#ifndef SSIMD_TOOLS_FAULT_LOAD_LADDER_RIG_H_
#define SSIMD_TOOLS_FAULT_LOAD_LADDER_RIG_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "engine/scorer.h"
#include "tools/fault_load/ladder_calls.h"
#include "tools/fault_load/ladder_judge.h"
#include "tools/fault_load/ladder_media.h"
#include "tools/fault_load/ladder_plan.h"
#include "tools/fault_load/slow_http_server.h"

namespace ssimd::fault_load {

struct LadderRigOptions {
  LadderMediaOptions media;
  // The largest picture the server decodes (GetCapabilities' limits.max_pixels); only decode
  // bombs over it are drawn. 0: an older server's fixed 16384x16384.
  uint64_t server_max_pixels = 0;
  // 0: no slow URL ladders. Otherwise the port of the slow HTTP server, which the ssimd server
  // must allow (--allow_url_prefix=http://127.0.0.1:PORT/).
  int url_port = 0;
  int64_t url_chunk_bytes = 16384;
  absl::Duration url_chunk_interval = absl::Milliseconds(100);
  LadderLimits limits;  // its sets, long_set, url_set, bombs and url_fetch_time are filled here
  LadderCallOptions calls;
  LadderJudgeOptions judge;
};

struct LadderRig {
  LadderMedia media;
  std::unique_ptr<SlowHttpServer> http;  // null: no URL ladders
  LadderLimits limits;
  LadderJudgeOptions judge;
  std::unique_ptr<LadderCalls> calls;
  std::vector<std::string> notes;  // what was left out and why
};

// Writes the files and starts the slow HTTP server. The rig is not movable once made: the calls
// point into its media.
absl::StatusOr<std::unique_ptr<LadderRig>> MakeLadderRig(LadderRigOptions options, Scorer* cpu);

// The largest picture an older server (without --max_picture_pixels) decodes.
inline constexpr uint64_t kOlderServerMaxPixels = uint64_t{16384} * 16384;

}  // namespace ssimd::fault_load

#endif  // SSIMD_TOOLS_FAULT_LOAD_LADDER_RIG_H_
