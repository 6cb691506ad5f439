// Runs the ladder kinds' calls against the server and records what came back: ScoreLadder calls
// that are read whole, cancelled at a planned response or time, cut by their deadline, left
// unread for a while, or made by a child process that is killed mid-ladder; decode bombs through
// ScoreFiles or ScoreLadder; renditions fetched as URLs from the tool's slow HTTP server.
#ifndef SSIMD_TOOLS_FAULT_LOAD_LADDER_CALLS_H_
#define SSIMD_TOOLS_FAULT_LOAD_LADDER_CALLS_H_

#include <atomic>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "grpcpp/grpcpp.h"
#include "proto/ssimd/v1/ssimd.grpc.pb.h"
#include "tools/fault_load/fault_plan.h"
#include "tools/fault_load/ladder_judge.h"
#include "tools/fault_load/ladder_media.h"
#include "tools/fault_load/slow_http_server.h"

namespace ssimd::fault_load {

// The request for `plan` on `set`. With `url_origin` ("http://127.0.0.1:PORT"), renditions are
// URLs below it that carry `call` as their "call" query parameter.
v1::ScoreLadderRequest LadderRequest(const LadderSet& set, const LadderPlan& plan,
                                     const std::string& url_origin, const std::string& call);

struct LadderCallOptions {
  std::string target;
  std::string self_exe;  // for the vanishing child
  // How long after a cancel the server may still touch a call's URLs (start or go on with a
  // fetch) before it counts as fetching after the cancel.
  absl::Duration url_cancel_grace = absl::Seconds(1);
  int max_concurrent_bombs = 1;  // a server without limits spends GiBs on each
};

class LadderCalls {
 public:
  // `http` may be null (no URL ladders); both must outlive this.
  LadderCalls(const LadderMedia* media, SlowHttpServer* http, LadderCallOptions options)
      : media_(media), http_(http), options_(std::move(options)) {}

  // Runs a ladder kind's `plan`; `stub` is the worker's (the stalled reader and the vanishing
  // child open connections of their own).
  LadderOutcome Run(const StreamPlan& plan, v1::ScoringService::Stub* stub);

 private:
  LadderOutcome RunLadder(const LadderPlan& plan, v1::ScoringService::Stub* stub);
  LadderOutcome RunStalledReader(const LadderPlan& plan);
  LadderOutcome RunVanishing(const LadderPlan& plan);
  LadderOutcome RunDecodeBomb(const LadderPlan& plan, v1::ScoringService::Stub* stub);
  // Counts the fetches of `call` that started or went on past the cancel's grace period.
  void CheckFetchesAfterCancel(const std::string& call, absl::Time cancelled_at,
                               LadderOutcome* outcome);
  bool BombSlotFree() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(bombs_mu_);

  const LadderMedia* const media_;
  SlowHttpServer* const http_;
  const LadderCallOptions options_;
  std::atomic<int64_t> next_call_{1};

  absl::Mutex bombs_mu_;
  int bombs_running_ ABSL_GUARDED_BY(bombs_mu_) = 0;
};

// The vanishing child's side: opens the ladder of `request_base64` (a serialized
// ScoreLadderRequest), reads `after` responses and kills itself with SIGKILL. Returns an exit
// code only when it could not get that far.
int LadderVanishChildMain(const std::string& target, const std::string& request_base64,
                          int after);

}  // namespace ssimd::fault_load

#endif  // SSIMD_TOOLS_FAULT_LOAD_LADDER_CALLS_H_
