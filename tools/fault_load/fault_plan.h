// What one stream of the fault-and-load run does (a healthy clip or one kind of fault), and how its
// outcome is judged: which statuses are acceptable, and whether every frame result that came back
// is the right one, in order.
#ifndef SSIMD_TOOLS_FAULT_LOAD_FAULT_PLAN_H_
#define SSIMD_TOOLS_FAULT_LOAD_FAULT_PLAN_H_

#include <array>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "grpcpp/grpcpp.h"
#include "proto/ssimd/v1/ssimd.pb.h"
#include "tools/fault_load/ladder_plan.h"
#include "tools/fault_load/synthetic_clips.h"

namespace ssimd::fault_load {

enum class StreamKind {
  kHealthy,     // a whole clip, results read as they come
  kSlowReader,  // a whole clip, results read with a pause before each
  kPair,        // one ScorePair call
  kCancel,      // the client cancels after some results
  kDeadline,    // a deadline too short for the clip
  kVanish,      // a child process opens the stream and is killed mid-stream
  kMalformed,   // a message the server must refuse (see Malformation)
  kOversized,   // a message over the server's size limit
  // Hostile clients (docs/adr/0067); only in the mix when asked for:
  kBomb,  // a gzip channel sending a frame of many MiB of zeros: the server refuses compression
  kIdle,  // the config and a few frames, then silence: the server ends it after its idle timeout
  // Ladders read from the server's files root (--files_root; ladder_plan.h), only in the mix when
  // asked for:
  kLadder,               // a healthy ScoreLadder call, every result verified
  kLadderCancel,         // cancelled before the first result, mid-ladder, at the end, or later
  kLadderDeadline,       // a deadline that expires mid-ladder
  kLadderVanish,         // a child process opens the ladder and is killed mid-ladder
  kLadderStalledReader,  // stops reading; the server must end it after its idle timeout
  kDecodeBomb,           // ScoreFiles/ScoreLadder of pictures over the server's limits: refused
  kLadderSlowUrl,        // renditions fetched from a slow loopback HTTP server, some cancelled
};
inline constexpr int kStreamKinds = 17;

const char* KindName(StreamKind kind);
bool IsHealthy(StreamKind kind);  // every frame must come back, correct and in order
bool IsLadderKind(StreamKind kind);
LadderFault LadderFaultOf(StreamKind kind);  // for ladder kinds
// "OK", "CANCELLED", ...
std::string StatusCodeName(grpc::StatusCode code);

enum class Malformation {
  kShortPlane,         // a plane one byte short: INVALID_ARGUMENT
  kIndexGap,           // frame indices skip one: INVALID_ARGUMENT
  kFrameBeforeConfig,  // FAILED_PRECONDITION
  kSecondConfig,       // FAILED_PRECONDITION
  kEmptyMessage,       // neither config nor frame: INVALID_ARGUMENT
  kSampleAbovePeak,    // a 10-bit sample above 1023: INVALID_ARGUMENT
  kBadConfig,          // bit_depth 7: INVALID_ARGUMENT
  kTooLargeForMessages,  // a geometry whose frames cannot fit a message: RESOURCE_EXHAUSTED
  // Messages that do not parse (a proto3 string that is not UTF-8): INVALID_ARGUMENT, as the API
  // promises for bad values, and never mistaken for the end of the stream.
  kInvalidUtf8,          // instead of the config
  kInvalidUtf8MidStream, // a second config, not UTF-8, in place of a frame
};
inline constexpr int kMalformations = 10;
const char* MalformationName(Malformation m);

struct StreamPlan {
  StreamKind kind = StreamKind::kHealthy;
  size_t variant = 0;
  int frames = 0;
  uint64_t pair_offset = 0;
  // kCancel: cancel after this many results; kMalformed: the bad message replaces this frame;
  // kVanish: frames sent before the child dies.
  int fault_frame = 0;
  Malformation malformation = Malformation::kShortPlane;
  absl::Duration deadline = absl::Seconds(60);  // the client's deadline for the whole stream
  absl::Duration read_delay;                    // kSlowReader: pause before each read
  absl::Duration send_delay;                    // pause between frames sent (shutdown test)
  int64_t bomb_bytes = 0;                       // kBomb: zeros in the frame's reference plane
  LadderPlan ladder;                            // ladder kinds
};

// Relative frequencies of the kinds, from a flag such as
// "healthy=8,slow_reader=2,pair=1,cancel=2,deadline=2,vanish=1,malformed=2,oversized=1".
struct KindWeights {
  std::array<int, kStreamKinds> weight{};
};
absl::StatusOr<KindWeights> ParseKindWeights(const std::string& text);

// What an idle stream's status message must name: the frame the server was waiting for.
std::string IdleAwaitedText(int frames_sent);

struct PlanLimits {
  int frames = 12;                     // frames of a healthy clip
  absl::Duration healthy_deadline = absl::Seconds(120);
  bool oversized_enabled = true;       // false when the server's limit is too large to exceed
  absl::Duration send_delay;
  int64_t bomb_bytes = int64_t{64} << 20;
  // The server's --stream_idle_timeout; an idle stream's own deadline is this plus
  // `idle_margin`, so the server, not the client, ends it.
  absl::Duration server_idle_timeout;
  absl::Duration idle_margin = absl::Seconds(10);
  LadderLimits ladder;  // what the ladder kinds can use; kinds it cannot serve are not drawn
};

// Draws the next stream. `variants` gives the pictures available (10-bit ones for
// kSampleAbovePeak). Ladder kinds draw their LadderPlan with DrawLadderPlan; for them `frames` is
// the number of frame results the call asks for.
StreamPlan DrawPlan(const KindWeights& weights, const PlanLimits& limits,
                    const std::vector<ClipVariant>& variants, std::mt19937_64& rng);

// What came back from the server for one stream.
struct StreamOutcome {
  grpc::StatusCode code = grpc::StatusCode::OK;
  std::string message;
  int frames_sent = 0;
  std::vector<v1::FrameResult> frames;
  bool has_summary = false;
  v1::ClipSummary summary;
  bool protocol_error = false;  // a response that was neither frame nor summary, or one too many
  absl::Time started;
  absl::Time finished;
  // kVanish: the child was killed as planned (false: it failed or hung before that).
  bool vanished = false;
  std::string child_error;
};

struct Verdict {
  int frames_verified = 0;  // results that matched the expected scores
  int frames_lost = 0;      // healthy frames sent but never answered
  int frames_misordered = 0;
  int frames_wrong = 0;     // wrong scores (or a result for a frame never sent)
  bool status_expected = true;
  bool stalled = false;     // a healthy stream that ran into its deadline
  std::string problem;      // the first problem, for the report; empty when all is well
  // How the stream ended within its kind, where the kind has more than one good ending (e.g. a
  // ladder cancel's point, a stalled reader "ended_by_server"); counted per kind in the report.
  std::string tag;
  int url_fetches_after_cancel = 0;  // kLadderSlowUrl: the server fetched on after the cancel
};

// When the server is being shut down (SIGTERM during the run), streams that reach it after the
// signal may be refused with UNAVAILABLE: an explicit status, not a silent drop.
struct JudgeContext {
  bool shutdown_started = false;
  absl::Time shutdown_at = absl::InfiniteFuture();
};

Verdict Judge(const StreamPlan& plan, const StreamOutcome& outcome, const ClipVariant& variant,
              const JudgeContext& context);

}  // namespace ssimd::fault_load

#endif  // SSIMD_TOOLS_FAULT_LOAD_FAULT_PLAN_H_
