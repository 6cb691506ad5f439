#include "tools/fault_load/fault_plan.h"

#include <algorithm>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"

namespace ssimd::fault_load {
namespace {

constexpr const char* kKindNames[kStreamKinds] = {
    "healthy",        "slow_reader",     "pair",          "cancel",
    "deadline",       "vanish",          "malformed",     "oversized",
    "bomb",           "idle",            "ladder",        "ladder_cancel",
    "ladder_deadline", "ladder_vanish",  "ladder_stalled_reader", "decode_bomb",
    "ladder_slow_url"};

int Uniform(std::mt19937_64& rng, int lo, int hi) {  // inclusive
  return lo + static_cast<int>(rng() % static_cast<uint64_t>(hi - lo + 1));
}

grpc::StatusCode ExpectedCode(Malformation m) {
  switch (m) {
    case Malformation::kFrameBeforeConfig:
    case Malformation::kSecondConfig:
      return grpc::StatusCode::FAILED_PRECONDITION;
    case Malformation::kTooLargeForMessages:
      return grpc::StatusCode::RESOURCE_EXHAUSTED;
    default:
      return grpc::StatusCode::INVALID_ARGUMENT;
  }
}

}  // namespace

std::string StatusCodeName(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::OK: return "OK";
    case grpc::StatusCode::CANCELLED: return "CANCELLED";
    case grpc::StatusCode::UNKNOWN: return "UNKNOWN";
    case grpc::StatusCode::INVALID_ARGUMENT: return "INVALID_ARGUMENT";
    case grpc::StatusCode::DEADLINE_EXCEEDED: return "DEADLINE_EXCEEDED";
    case grpc::StatusCode::NOT_FOUND: return "NOT_FOUND";
    case grpc::StatusCode::RESOURCE_EXHAUSTED: return "RESOURCE_EXHAUSTED";
    case grpc::StatusCode::FAILED_PRECONDITION: return "FAILED_PRECONDITION";
    case grpc::StatusCode::UNAVAILABLE: return "UNAVAILABLE";
    case grpc::StatusCode::INTERNAL: return "INTERNAL";
    case grpc::StatusCode::UNIMPLEMENTED: return "UNIMPLEMENTED";
    case grpc::StatusCode::PERMISSION_DENIED: return "PERMISSION_DENIED";
    case grpc::StatusCode::ABORTED: return "ABORTED";
    case grpc::StatusCode::DATA_LOSS: return "DATA_LOSS";
    default: return absl::StrCat("code ", static_cast<int>(code));
  }
}

namespace {

// Checks the results that came back against the expected scores, frame by frame.
void CheckResults(const StreamPlan& plan, const StreamOutcome& outcome,
                  const ClipVariant& variant, Verdict* v) {
  for (size_t i = 0; i < outcome.frames.size(); ++i) {
    const v1::FrameResult& r = outcome.frames[i];
    if (r.index() != i) {
      ++v->frames_misordered;
      if (v->problem.empty()) {
        v->problem = absl::StrFormat("result %d carries index %d", i, r.index());
      }
      continue;
    }
    if (static_cast<int>(i) >= outcome.frames_sent) {
      ++v->frames_wrong;
      if (v->problem.empty()) v->problem = absl::StrFormat("a result for frame %d, never sent", i);
      continue;
    }
    std::string why;
    const size_t pair = variant.PairFor(i, plan.pair_offset);
    if (variant.expected.empty() || !SameScores(variant, variant.expected[pair], r, &why)) {
      ++v->frames_wrong;
      if (v->problem.empty()) v->problem = absl::StrFormat("frame %d: %s", i, why);
      continue;
    }
    ++v->frames_verified;
  }
}

bool Complete(const StreamOutcome& outcome, bool want_summary) {
  if (static_cast<int>(outcome.frames.size()) != outcome.frames_sent) return false;
  if (!want_summary) return true;
  return outcome.has_summary &&
         outcome.summary.frames() == static_cast<uint64_t>(outcome.frames_sent);
}

}  // namespace

const char* KindName(StreamKind kind) { return kKindNames[static_cast<int>(kind)]; }

bool IsHealthy(StreamKind kind) {
  return kind == StreamKind::kHealthy || kind == StreamKind::kSlowReader ||
         kind == StreamKind::kPair || kind == StreamKind::kLadder;
}

bool IsLadderKind(StreamKind kind) {
  return static_cast<int>(kind) >= static_cast<int>(StreamKind::kLadder);
}

LadderFault LadderFaultOf(StreamKind kind) {
  switch (kind) {
    case StreamKind::kLadderCancel: return LadderFault::kCancel;
    case StreamKind::kLadderDeadline: return LadderFault::kDeadline;
    case StreamKind::kLadderVanish: return LadderFault::kVanish;
    case StreamKind::kLadderStalledReader: return LadderFault::kStalledReader;
    case StreamKind::kDecodeBomb: return LadderFault::kDecodeBomb;
    case StreamKind::kLadderSlowUrl: return LadderFault::kSlowUrl;
    default: return LadderFault::kNone;
  }
}

std::string IdleAwaitedText(int frames_sent) {
  return absl::StrCat("waiting for frame ", frames_sent);
}

const char* MalformationName(Malformation m) {
  static constexpr const char* kNames[kMalformations] = {
      "short_plane", "index_gap",      "frame_before_config", "second_config",
      "empty_message", "sample_above_peak", "bad_config",     "too_large_for_messages",
      "invalid_utf8", "invalid_utf8_mid_stream"};
  return kNames[static_cast<int>(m)];
}

absl::StatusOr<KindWeights> ParseKindWeights(const std::string& text) {
  KindWeights out;
  int total = 0;
  for (absl::string_view item : absl::StrSplit(text, ',', absl::SkipEmpty())) {
    std::pair<std::string, std::string> kv = absl::StrSplit(item, absl::MaxSplits('=', 1));
    int kind = -1;
    for (int k = 0; k < kStreamKinds; ++k) {
      if (kv.first == kKindNames[k]) kind = k;
    }
    int weight = 0;
    if (kind < 0 || !absl::SimpleAtoi(kv.second, &weight) || weight < 0) {
      std::string kinds;
      for (int k = 0; k < kStreamKinds; ++k) absl::StrAppend(&kinds, k == 0 ? "" : ", ", kKindNames[k]);
      return absl::InvalidArgumentError(absl::StrCat(
          "--mix: expected kind=weight pairs with kinds ", kinds, " and weights >= 0, got \"",
          item, "\""));
    }
    out.weight[kind] = weight;
    total += weight;
  }
  if (total == 0) return absl::InvalidArgumentError("--mix: every weight is 0");
  return out;
}

StreamPlan DrawPlan(const KindWeights& weights, const PlanLimits& limits,
                    const std::vector<ClipVariant>& variants, std::mt19937_64& rng) {
  std::array<int, kStreamKinds> w = weights.weight;
  if (!limits.oversized_enabled) w[static_cast<int>(StreamKind::kOversized)] = 0;
  for (int k = 0; k < kStreamKinds; ++k) {
    const StreamKind kind = static_cast<StreamKind>(k);
    if (IsLadderKind(kind) && !LadderFaultAvailable(LadderFaultOf(kind), limits.ladder)) w[k] = 0;
  }
  int total = 0;
  for (int x : w) total += x;
  if (total == 0) w[static_cast<int>(StreamKind::kHealthy)] = total = 1;
  int pick = Uniform(rng, 0, total - 1);
  int kind = 0;
  while (pick >= w[kind]) pick -= w[kind++];

  StreamPlan plan;
  plan.kind = static_cast<StreamKind>(kind);
  plan.variant = static_cast<size_t>(rng() % variants.size());
  plan.frames = std::max(1, limits.frames + Uniform(rng, -limits.frames / 2, limits.frames / 2));
  plan.pair_offset = rng() % 1000;
  plan.deadline = limits.healthy_deadline;
  plan.send_delay = limits.send_delay;
  switch (plan.kind) {
    case StreamKind::kHealthy:
      break;
    case StreamKind::kSlowReader:
      plan.read_delay = absl::Milliseconds(Uniform(rng, 5, 60));
      break;
    case StreamKind::kPair:
      plan.frames = 1;
      break;
    case StreamKind::kCancel:
      plan.fault_frame = Uniform(rng, 0, plan.frames - 1);
      break;
    case StreamKind::kDeadline:
      // Several times the frames a short deadline can cover; usually ends in DEADLINE_EXCEEDED.
      plan.frames = 8 * limits.frames;
      plan.deadline = absl::Milliseconds(Uniform(rng, 1, 40));
      break;
    case StreamKind::kVanish:
      plan.fault_frame = Uniform(rng, 1, std::max(1, std::min(plan.frames, 4)));
      break;
    case StreamKind::kMalformed: {
      plan.malformation = static_cast<Malformation>(Uniform(rng, 0, kMalformations - 1));
      if (plan.malformation == Malformation::kSampleAbovePeak) {
        // Only 10- and 12-bit pictures have samples that can exceed their peak.
        std::vector<size_t> candidates;
        for (size_t i = 0; i < variants.size(); ++i) {
          const int depth = variants[i].geometry.bit_depth;
          if (depth == 10 || depth == 12) candidates.push_back(i);
        }
        if (candidates.empty()) {
          plan.malformation = Malformation::kShortPlane;
        } else {
          plan.variant = candidates[rng() % candidates.size()];
        }
      }
      plan.fault_frame = Uniform(rng, 0, plan.frames - 1);
      break;
    }
    case StreamKind::kOversized:
      plan.fault_frame = Uniform(rng, 0, 2);
      plan.frames = std::max(plan.frames, plan.fault_frame + 1);
      break;
    case StreamKind::kBomb:
      plan.frames = 1;
      plan.bomb_bytes = limits.bomb_bytes;
      break;
    case StreamKind::kIdle:
      // Silence right after the config, or after a few frames (whose results must come back).
      plan.frames = Uniform(rng, 0, 3);
      plan.deadline = limits.server_idle_timeout + limits.idle_margin;
      break;
    default:  // the ladder kinds
      plan.ladder = DrawLadderPlan(LadderFaultOf(plan.kind), limits.ladder, rng);
      plan.deadline = plan.ladder.deadline;
      plan.frames =
          plan.ladder.fault == LadderFault::kDecodeBomb
              ? 0
              : static_cast<int>(plan.ladder.FrameResults(limits.ladder.sets[plan.ladder.set].frames));
      break;
  }
  return plan;
}

Verdict Judge(const StreamPlan& plan, const StreamOutcome& outcome, const ClipVariant& variant,
              const JudgeContext& context) {
  Verdict v;
  if (plan.kind == StreamKind::kVanish) {
    if (!outcome.vanished) {
      v.status_expected = false;
      v.problem = absl::StrCat("the vanishing client did not get to vanish: ", outcome.child_error);
    }
    return v;
  }
  CheckResults(plan, outcome, variant, &v);
  if (outcome.protocol_error && v.problem.empty()) {
    v.problem = "a response that was neither a frame result nor the summary, or came after it";
  }
  const bool ok = outcome.code == grpc::StatusCode::OK;
  const bool in_shutdown = context.shutdown_started && outcome.finished >= context.shutdown_at;
  // Once the server shuts down it refuses new streams with UNAVAILABLE. A stream it had accepted
  // must still finish within the grace period: being cut (CANCELLED) is a failure here.
  const bool may_be_refused = in_shutdown && outcome.frames.empty() &&
                              outcome.code == grpc::StatusCode::UNAVAILABLE;
  const std::string got = StatusCodeName(outcome.code);

  auto unexpected = [&](const std::string& why) {
    v.status_expected = false;
    if (v.problem.empty()) {
      v.problem = absl::StrCat(why, "; got ", got, ": ", outcome.message);
    }
  };

  switch (plan.kind) {
    case StreamKind::kHealthy:
    case StreamKind::kSlowReader:
    case StreamKind::kPair: {
      const bool want_summary = plan.kind != StreamKind::kPair;
      if (ok) {
        if (!Complete(outcome, want_summary)) {
          v.frames_lost = std::max(0, outcome.frames_sent - static_cast<int>(outcome.frames.size()));
          if (v.problem.empty()) {
            v.problem = absl::StrFormat(
                "status OK but %d of %d results%s", outcome.frames.size(), outcome.frames_sent,
                want_summary && !outcome.has_summary ? " and no summary" : "");
          }
        }
      } else if (!may_be_refused) {
        v.frames_lost = std::max(0, outcome.frames_sent - static_cast<int>(outcome.frames.size()));
        v.stalled = outcome.code == grpc::StatusCode::DEADLINE_EXCEEDED;
        unexpected(absl::StrFormat("a healthy %s stream must end OK", KindName(plan.kind)));
      }
      break;
    }
    case StreamKind::kCancel:
      if (!(outcome.code == grpc::StatusCode::CANCELLED || (ok && Complete(outcome, true)) ||
            may_be_refused)) {
        unexpected("a cancelled stream must end CANCELLED (or OK when it finished first)");
      }
      break;
    case StreamKind::kDeadline:
      if (!(outcome.code == grpc::StatusCode::DEADLINE_EXCEEDED ||
            (ok && Complete(outcome, true)) || may_be_refused)) {
        unexpected("a stream past its deadline must end DEADLINE_EXCEEDED (or OK when done)");
      }
      break;
    case StreamKind::kMalformed: {
      const grpc::StatusCode want = ExpectedCode(plan.malformation);
      if (outcome.code != want && !may_be_refused) {
        unexpected(absl::StrCat("malformed (", MalformationName(plan.malformation),
                                ") must end ", StatusCodeName(want)));
      }
      break;
    }
    case StreamKind::kOversized:
      if (outcome.code != grpc::StatusCode::RESOURCE_EXHAUSTED && !may_be_refused) {
        unexpected("an oversized message must end RESOURCE_EXHAUSTED");
      }
      break;
    case StreamKind::kBomb:
      if (outcome.code != grpc::StatusCode::UNIMPLEMENTED && !may_be_refused) {
        unexpected("a compressed message must end UNIMPLEMENTED (compression is refused)");
      }
      break;
    case StreamKind::kIdle: {
      if (outcome.code == grpc::StatusCode::DEADLINE_EXCEEDED) {
        v.frames_lost = std::max(0, outcome.frames_sent - static_cast<int>(outcome.frames.size()));
        if (v.frames_lost > 0 && v.problem.empty()) {
          v.problem = absl::StrFormat("idle stream: %d of %d results before it was ended",
                                      outcome.frames.size(), outcome.frames_sent);
        }
      }
      const std::string awaited = IdleAwaitedText(outcome.frames_sent);
      if (!may_be_refused && (outcome.code != grpc::StatusCode::DEADLINE_EXCEEDED ||
                              outcome.message.find(awaited) == std::string::npos)) {
        unexpected(absl::StrCat("an idle stream must be ended by the server with "
                                "DEADLINE_EXCEEDED naming what it waited for (\"",
                                awaited, "\")"));
      }
      break;
    }
    default:  // kVanish, and the ladder kinds, which JudgeLadder judges
      break;
  }
  return v;
}

}  // namespace ssimd::fault_load
