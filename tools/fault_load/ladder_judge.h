// How a ladder kind's call is judged: every frame result that came back must be the CPU engine's
// score for that rendition and frame, each rendition's results in frame order and before its
// summary, the ladder summary last; the call must end with the status its fault calls for.
#ifndef SSIMD_TOOLS_FAULT_LOAD_LADDER_JUDGE_H_
#define SSIMD_TOOLS_FAULT_LOAD_LADDER_JUDGE_H_

#include <string>
#include <vector>

#include "absl/time/time.h"
#include "proto/ssimd/v1/ssimd.pb.h"
#include "tools/fault_load/fault_plan.h"
#include "tools/fault_load/ladder_media.h"

namespace ssimd::fault_load {

// What came back for one ladder kind's call.
struct LadderOutcome {
  // The status, its message and times; for kLadderVanish whether the child vanished; for a decode
  // bomb sent through ScoreFiles its frame results and summary.
  StreamOutcome call;
  std::vector<v1::ScoreLadderResponse> responses;  // in the order read
  // kLadderStalledReader: when the client stopped reading (it reads again after the stall).
  absl::Time stopped_reading_at;
  // kLadderSlowUrl: fetches the server started or went on with after the client cancelled.
  int url_fetches_after_cancel = 0;
  std::string url_detail;
};

struct LadderJudgeOptions {
  absl::Duration server_idle_timeout;
  // A refused decode bomb's message must name the picture's size ("WxH", or its pixels).
  bool bomb_message_names_size = true;
};

Verdict JudgeLadder(const StreamPlan& plan, const LadderOutcome& outcome, const LadderMedia& media,
                    const LadderJudgeOptions& options, const JudgeContext& context);

}  // namespace ssimd::fault_load

#endif  // SSIMD_TOOLS_FAULT_LOAD_LADDER_JUDGE_H_
