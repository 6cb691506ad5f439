// Runs one planned stream against the server and records what came back: a ScoreClip stream
// (healthy, slow reader, cancelled, past its deadline, malformed, oversized), a ScorePair call, or
// a client that vanishes mid-stream (a child process killed with SIGKILL, so the server sees a
// connection drop rather than a polite cancel).
#ifndef SSIMD_TOOLS_FAULT_LOAD_STREAM_RUNNER_H_
#define SSIMD_TOOLS_FAULT_LOAD_STREAM_RUNNER_H_

#include <cstdint>
#include <string>

#include "proto/ssimd/v1/ssimd.grpc.pb.h"
#include "tools/fault_load/fault_plan.h"
#include "tools/fault_load/synthetic_clips.h"

namespace ssimd::fault_load {

// `max_message_bytes` is the server's limit (from GetCapabilities), which oversized messages
// exceed by one byte.
StreamOutcome RunClipStream(v1::ScoringService::Stub* stub, const StreamPlan& plan,
                            const ClipVariant& variant, int64_t max_message_bytes);

StreamOutcome RunPairCall(v1::ScoringService::Stub* stub, const StreamPlan& plan,
                          const ClipVariant& variant);

// A compression bomb: the config, then one frame whose reference plane is `plan.bomb_bytes` zeros,
// on `gzip_stub`, a stub of a channel that compresses with gzip (a few hundred KB on the wire).
StreamOutcome RunBombStream(v1::ScoringService::Stub* gzip_stub, const StreamPlan& plan,
                            const ClipVariant& variant);

// An idle client: the config and `plan.frames` frames, then nothing more (no half-close) while it
// reads whatever comes back, until the server ends the stream or `plan.deadline` passes.
StreamOutcome RunIdleStream(v1::ScoringService::Stub* stub, const StreamPlan& plan,
                            const ClipVariant& variant);

// What a vanishing child needs to open its stream.
struct VanishArgs {
  std::string target;
  bool large = false;
  size_t variant = 0;
  int frames = 1;  // frames sent before it waits for a result and dies
  uint64_t pair_offset = 0;
};

// Starts `self_exe` as a vanishing child and waits (at most 60 s) until it is dead.
StreamOutcome RunVanishingClient(const std::string& self_exe, const VanishArgs& args);

// The child's side: opens the stream, sends the config and `frames` frames, waits for the first
// result, sends one more frame and kills itself with SIGKILL. Returns an exit code only when it
// could not get that far.
int VanishChildMain(const VanishArgs& args);

}  // namespace ssimd::fault_load

#endif  // SSIMD_TOOLS_FAULT_LOAD_STREAM_RUNNER_H_
