// What one ScoreLadder (or decode-bomb ScoreFiles) call of the fault-and-load run does: which
// ladder, which renditions and frames, and where its fault strikes (a cancel before the first
// result, mid-ladder, while the last rounds drain or among the summaries; a deadline; a client that
// vanishes or stops reading; a cancel while the server fetches slow URLs).
#ifndef SSIMD_TOOLS_FAULT_LOAD_LADDER_PLAN_H_
#define SSIMD_TOOLS_FAULT_LOAD_LADDER_PLAN_H_

#include <cstdint>
#include <random>
#include <vector>

#include "absl/time/time.h"

namespace ssimd::fault_load {

enum class LadderFault {
  kNone,           // a healthy ladder: every result, verified, then the summaries
  kCancel,         // the client cancels at a CancelPoint
  kDeadline,       // a deadline that expires mid-ladder
  kVanish,         // a child process opens the ladder and is killed mid-ladder
  kStalledReader,  // the client stops reading; the server must end the call after its idle timeout
  kDecodeBomb,     // files whose pictures are over the server's limits: refused
  kSlowUrl,        // renditions fetched from the tool's slow HTTP server, some cancelled mid-fetch
};

enum class CancelPoint {
  kNone,
  kBeforeFirstResult,
  kMidLadder,
  kLastRounds,      // a few results before the last frame results
  kAmongSummaries,  // after some rendition summaries
};
inline constexpr int kCancelPoints = 4;  // the ones after kNone
const char* CancelPointName(CancelPoint point);

// What drawing needs to know of one ladder of LadderMedia.
struct LadderSetShape {
  int frames = 0;
  int renditions = 0;
};

struct LadderLimits {
  std::vector<LadderSetShape> sets;
  int long_set = -1;  // for deadlines, vanishing and stalled readers: the most results
  int url_set = -1;   // -1: no slow URL ladders
  int bombs = 0;
  int frames = 12;  // typical frames per rendition of a healthy ladder
  absl::Duration healthy_deadline = absl::Seconds(120);
  // The server's --stream_idle_timeout; a stalled reader stops reading for this plus
  // idle_margin, and resumes: by then the server must have ended the call.
  absl::Duration server_idle_timeout;
  absl::Duration idle_margin = absl::Seconds(10);
  // How long the slow HTTP server takes to serve one rendition of the URL ladder.
  absl::Duration url_fetch_time = absl::Seconds(1);
  absl::Duration bomb_deadline = absl::Seconds(60);
};

struct LadderPlan {
  LadderFault fault = LadderFault::kNone;
  int set = 0;
  std::vector<int> renditions;  // indices into the set's renditions, in request order
  uint64_t start = 0;           // source_start_frame and every rendition's start_frame
  uint64_t frame_count = 0;     // the request's frame_count; 0 = to the end of the files
  absl::Duration deadline = absl::Seconds(120);
  CancelPoint cancel_point = CancelPoint::kNone;
  int cancel_after = 0;         // responses read before the client cancels
  absl::Duration cancel_delay;  // kBeforeFirstResult: from opening the call to the cancel
  absl::Duration cancel_at;     // kSlowUrl: cancel this long after opening (zero: never)
  int stop_reading_after = 0;   // kStalledReader: responses read before it stops
  absl::Duration stall;         // kStalledReader: how long it stops
  int vanish_after = 0;         // kVanish: responses the child reads before it is killed
  bool urls = false;            // renditions given as URLs of the slow HTTP server
  int bomb = 0;                 // kDecodeBomb: index into LadderMedia.bombs
  bool bomb_via_ladder = false; // kDecodeBomb: ScoreLadder, else ScoreFiles

  // Frame results each rendition must deliver, for a set of `set_frames` frames.
  uint64_t FramesPerRendition(int set_frames) const;
  // Frame results of the whole ladder.
  uint64_t FrameResults(int set_frames) const;
};

// Whether `fault` can be drawn under `limits` (a files root with the files it needs).
bool LadderFaultAvailable(LadderFault fault, const LadderLimits& limits);

// Draws a call with `fault`; LadderFaultAvailable must hold.
LadderPlan DrawLadderPlan(LadderFault fault, const LadderLimits& limits, std::mt19937_64& rng);

}  // namespace ssimd::fault_load

#endif  // SSIMD_TOOLS_FAULT_LOAD_LADDER_PLAN_H_
