#include "tools/fault_load/ladder_plan.h"

#include <algorithm>
#include <numeric>

namespace ssimd::fault_load {
namespace {

int64_t Uniform(std::mt19937_64& rng, int64_t lo, int64_t hi) {  // inclusive; lo when hi < lo
  if (hi <= lo) return lo;
  return lo + static_cast<int64_t>(rng() % static_cast<uint64_t>(hi - lo + 1));
}

absl::Duration UniformDuration(std::mt19937_64& rng, absl::Duration lo, absl::Duration hi) {
  const int64_t lo_us = absl::ToInt64Microseconds(lo);
  const int64_t hi_us = absl::ToInt64Microseconds(hi);
  return absl::Microseconds(Uniform(rng, lo_us, hi_us));
}

std::vector<int> AllRenditions(const LadderSetShape& set) {
  std::vector<int> all(static_cast<size_t>(set.renditions));
  std::iota(all.begin(), all.end(), 0);
  return all;
}

// One to all of the set's renditions, in a random order: results must follow the request's order
// whatever it is.
std::vector<int> SomeRenditions(const LadderSetShape& set, std::mt19937_64& rng) {
  std::vector<int> all = AllRenditions(set);
  std::shuffle(all.begin(), all.end(), rng);
  all.resize(static_cast<size_t>(Uniform(rng, 1, set.renditions)));
  return all;
}

// A start frame and a frame count of about `typical` frames (sometimes to the end of the files
// when they are that short, so the server counts to the end itself).
void DrawFrames(const LadderSetShape& set, int typical, std::mt19937_64& rng, LadderPlan* plan) {
  typical = std::max(1, typical);
  plan->start = static_cast<uint64_t>(Uniform(rng, 0, std::max(0, set.frames - 1)));
  const int64_t left = set.frames - static_cast<int64_t>(plan->start);
  if (left <= 2 * typical && rng() % 2 == 0) {
    plan->frame_count = 0;
    return;
  }
  const int64_t wanted = Uniform(rng, std::max(1, typical / 2), typical + typical / 2);
  plan->frame_count = static_cast<uint64_t>(std::min(wanted, left));
}

int PickSet(const LadderLimits& limits, std::mt19937_64& rng) {
  return static_cast<int>(rng() % limits.sets.size());
}

// The response after which the client cancels, for `point`; `results` frame results and then a
// summary per rendition and one for the ladder.
int CancelAfter(CancelPoint point, int64_t results, int renditions, std::mt19937_64& rng) {
  switch (point) {
    case CancelPoint::kBeforeFirstResult:
    case CancelPoint::kNone:
      return 0;
    case CancelPoint::kMidLadder:
      return static_cast<int>(Uniform(rng, 1, std::max<int64_t>(1, results - 1)));
    case CancelPoint::kLastRounds:
      // Within the last two rounds' results.
      return static_cast<int>(
          std::max<int64_t>(1, results - Uniform(rng, 1, std::max(1, 2 * renditions))));
    case CancelPoint::kAmongSummaries:
      return static_cast<int>(results + Uniform(rng, 1, renditions));
  }
  return 0;
}

}  // namespace

const char* CancelPointName(CancelPoint point) {
  switch (point) {
    case CancelPoint::kNone: return "none";
    case CancelPoint::kBeforeFirstResult: return "before_first_result";
    case CancelPoint::kMidLadder: return "mid_ladder";
    case CancelPoint::kLastRounds: return "last_rounds";
    case CancelPoint::kAmongSummaries: return "among_summaries";
  }
  return "?";
}

uint64_t LadderPlan::FramesPerRendition(int set_frames) const {
  if (frame_count > 0) return frame_count;
  return start >= static_cast<uint64_t>(set_frames) ? 0 : set_frames - start;
}

uint64_t LadderPlan::FrameResults(int set_frames) const {
  return FramesPerRendition(set_frames) * renditions.size();
}

bool LadderFaultAvailable(LadderFault fault, const LadderLimits& limits) {
  if (limits.sets.empty()) return false;
  switch (fault) {
    case LadderFault::kDecodeBomb:
      return limits.bombs > 0;
    case LadderFault::kSlowUrl:
      return limits.url_set >= 0;
    case LadderFault::kStalledReader:
      return limits.long_set >= 0 && limits.server_idle_timeout > absl::ZeroDuration();
    case LadderFault::kDeadline:
    case LadderFault::kVanish:
      return limits.long_set >= 0;
    default:
      return true;
  }
}

LadderPlan DrawLadderPlan(LadderFault fault, const LadderLimits& limits, std::mt19937_64& rng) {
  LadderPlan plan;
  plan.fault = fault;
  plan.deadline = limits.healthy_deadline;
  switch (fault) {
    case LadderFault::kNone: {
      plan.set = PickSet(limits, rng);
      const LadderSetShape& set = limits.sets[plan.set];
      plan.renditions = SomeRenditions(set, rng);
      DrawFrames(set, limits.frames, rng, &plan);
      break;
    }
    case LadderFault::kCancel: {
      plan.set = PickSet(limits, rng);
      const LadderSetShape& set = limits.sets[plan.set];
      plan.renditions = SomeRenditions(set, rng);
      // Longer than a healthy ladder, so that "mid-ladder" has room.
      DrawFrames(set, 3 * limits.frames, rng, &plan);
      plan.cancel_point = static_cast<CancelPoint>(Uniform(rng, 1, kCancelPoints));
      const int64_t results = static_cast<int64_t>(plan.FrameResults(set.frames));
      plan.cancel_after = CancelAfter(plan.cancel_point, results,
                                      static_cast<int>(plan.renditions.size()), rng);
      if (plan.cancel_point == CancelPoint::kBeforeFirstResult) {
        plan.cancel_delay = UniformDuration(rng, absl::ZeroDuration(), absl::Milliseconds(20));
      }
      break;
    }
    case LadderFault::kDeadline: {
      // The whole long ladder against a deadline of a few to a few hundred milliseconds: it
      // usually expires with rounds in flight, sometimes before the first result.
      plan.set = limits.long_set;
      plan.renditions = AllRenditions(limits.sets[plan.set]);
      plan.start = static_cast<uint64_t>(Uniform(rng, 0, 5));
      plan.deadline = UniformDuration(rng, absl::Milliseconds(1), absl::Milliseconds(150));
      break;
    }
    case LadderFault::kVanish: {
      plan.set = limits.long_set;
      const LadderSetShape& set = limits.sets[plan.set];
      plan.renditions = AllRenditions(set);
      DrawFrames(set, 8 * limits.frames, rng, &plan);
      const int64_t results = static_cast<int64_t>(plan.FrameResults(set.frames));
      plan.vanish_after = static_cast<int>(Uniform(rng, 0, std::max<int64_t>(0, results - 1)));
      break;
    }
    case LadderFault::kStalledReader: {
      // Every frame of the long ladder: far more results than the client's flow-control window
      // holds, so the server blocks writing.
      plan.set = limits.long_set;
      plan.renditions = AllRenditions(limits.sets[plan.set]);
      plan.stop_reading_after = static_cast<int>(Uniform(rng, 0, 20));
      plan.stall = limits.server_idle_timeout + limits.idle_margin;
      plan.deadline = plan.stall + limits.healthy_deadline;
      break;
    }
    case LadderFault::kDecodeBomb:
      plan.bomb = static_cast<int>(Uniform(rng, 0, limits.bombs - 1));
      plan.bomb_via_ladder = rng() % 2 == 0;
      plan.deadline = limits.bomb_deadline;
      break;
    case LadderFault::kSlowUrl: {
      plan.set = limits.url_set;
      plan.renditions = AllRenditions(limits.sets[plan.set]);
      plan.urls = true;
      // Half of them are cancelled while the server fetches.
      if (rng() % 2 == 0) {
        plan.cancel_at = UniformDuration(rng, absl::Milliseconds(20),
                                         limits.url_fetch_time * plan.renditions.size());
      }
      break;
    }
  }
  return plan;
}

}  // namespace ssimd::fault_load
