#include "tools/fault_load/ladder_judge.h"

#include <algorithm>
#include <map>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace ssimd::fault_load {
namespace {

// The responses of one ladder call, checked one at a time against the request and the expected
// scores.
struct LadderTally {
  int verified = 0;
  int misordered = 0;
  int wrong = 0;
  std::vector<uint64_t> frames;  // frame results per requested rendition
  std::vector<bool> summarised;
  bool ladder_summary = false;
  uint64_t ladder_source_frames = 0;
  uint32_t ladder_renditions = 0;
  double ladder_elapsed_seconds = 0;
  bool out_of_place = false;  // a summary or an empty response where it does not belong
  std::string problem;

  void Note(std::string text) {
    if (problem.empty()) problem = std::move(text);
  }
  uint64_t results() const {
    uint64_t n = 0;
    for (uint64_t f : frames) n += f;
    return n;
  }
};

void TallyFrame(const LadderPlan& plan, const LadderSet& set, uint64_t per_rendition,
                const std::map<std::string, size_t>& position, const v1::RenditionFrame& frame,
                LadderTally& t) {
  auto it = position.find(frame.rendition());
  if (it == position.end()) {
    ++t.wrong;
    t.Note(absl::StrCat("a result for rendition \"", frame.rendition(), "\", not asked for"));
    return;
  }
  const size_t r = it->second;
  const int rung = plan.renditions[r];
  const std::string& name = set.renditions[rung].name;
  const uint64_t index = frame.result().index();
  const uint64_t expected_index = t.frames[r]++;
  if (t.summarised[r]) {
    ++t.misordered;
    t.Note(absl::StrFormat("rendition %s: frame %d came after its summary", name, index));
    return;
  }
  if (index != expected_index) {
    ++t.misordered;
    t.Note(absl::StrFormat("rendition %s: result %d carries index %d", name, expected_index,
                           index));
    return;
  }
  if (index >= per_rendition) {
    ++t.wrong;
    t.Note(absl::StrFormat("rendition %s: a result for frame %d, past the %d asked for", name,
                           index, per_rendition));
    return;
  }
  std::string why;
  if (!SameScores(set.renditions[rung].shape, set.Expected(rung, plan.start + index),
                  frame.result(), &why)) {
    ++t.wrong;
    t.Note(absl::StrFormat("rendition %s: frame %d: %s", name, index, why));
    return;
  }
  ++t.verified;
}

LadderTally Tally(const LadderPlan& plan, const LadderSet& set,
                  const std::vector<v1::ScoreLadderResponse>& responses) {
  const uint64_t per_rendition = plan.FramesPerRendition(set.frames);
  std::map<std::string, size_t> position;
  for (size_t i = 0; i < plan.renditions.size(); ++i) {
    position[set.renditions[plan.renditions[i]].name] = i;
  }
  LadderTally t;
  t.frames.assign(plan.renditions.size(), 0);
  t.summarised.assign(plan.renditions.size(), false);
  for (const v1::ScoreLadderResponse& response : responses) {
    if (t.ladder_summary) {
      t.out_of_place = true;
      t.Note("a response after the ladder summary");
      continue;
    }
    switch (response.message_case()) {
      case v1::ScoreLadderResponse::kFrame:
        TallyFrame(plan, set, per_rendition, position, response.frame(), t);
        break;
      case v1::ScoreLadderResponse::kRenditionSummary: {
        const v1::RenditionSummary& summary = response.rendition_summary();
        auto it = position.find(summary.rendition());
        if (it == position.end() || t.summarised[it->second]) {
          t.out_of_place = true;
          t.Note(absl::StrCat("a summary of rendition \"", summary.rendition(), "\", ",
                              it == position.end() ? "not asked for" : "a second time"));
          break;
        }
        const size_t r = it->second;
        t.summarised[r] = true;
        const v1::ClipSummary& clip = summary.summary();
        if (clip.frames() != t.frames[r] || clip.unmatched_reference_frames() != 0 ||
            clip.unmatched_distorted_frames() != 0) {
          t.out_of_place = true;
          t.Note(absl::StrFormat(
              "rendition %s: its summary counts %d frames (unmatched %d/%d) after %d results",
              summary.rendition(), clip.frames(), clip.unmatched_reference_frames(),
              clip.unmatched_distorted_frames(), t.frames[r]));
        }
        break;
      }
      case v1::ScoreLadderResponse::kLadderSummary:
        t.ladder_summary = true;
        t.ladder_source_frames = response.ladder_summary().source_frames();
        t.ladder_renditions = response.ladder_summary().renditions();
        t.ladder_elapsed_seconds = response.ladder_summary().elapsed_seconds();
        if (std::count(t.summarised.begin(), t.summarised.end(), false) > 0) {
          t.out_of_place = true;
          t.Note("the ladder summary came before every rendition's summary");
        }
        break;
      default:
        t.out_of_place = true;
        t.Note("an empty response");
        break;
    }
  }
  return t;
}

bool Complete(const LadderTally& t, uint64_t per_rendition) {
  for (size_t r = 0; r < t.frames.size(); ++r) {
    if (t.frames[r] != per_rendition || !t.summarised[r]) return false;
  }
  return t.ladder_summary && t.ladder_source_frames == per_rendition &&
         t.ladder_renditions == t.frames.size();
}

// "WxH" or the pixel count: the width alone could be the limit's (8192 in "8192x4352").
bool NamesSize(const std::string& message, const BombFile& bomb) {
  return absl::StrContains(message, absl::StrCat(bomb.width, "x", bomb.height)) ||
         absl::StrContains(message, absl::StrCat(int64_t{bomb.width} * bomb.height));
}

Verdict JudgeBomb(const StreamPlan& plan, const LadderOutcome& outcome, const LadderMedia& media,
                  const LadderJudgeOptions& options, bool may_be_refused) {
  Verdict v;
  const BombFile& bomb = media.bombs[plan.ladder.bomb];
  const std::string via = plan.ladder.bomb_via_ladder ? "ScoreLadder" : "ScoreFiles";
  const grpc::StatusCode code = outcome.call.code;
  const std::string got =
      absl::StrCat(StatusCodeName(code), ": ", outcome.call.message.substr(0, 300));
  if (code == grpc::StatusCode::RESOURCE_EXHAUSTED ||
      code == grpc::StatusCode::INVALID_ARGUMENT) {
    // Which code: servers with --max_picture_pixels say RESOURCE_EXHAUSTED, older ones refused
    // only pictures over 16384x16384, as INVALID_ARGUMENT.
    // The bomb's file is in the tag: each is refused by its own check.
    const std::string file = bomb.path.substr(bomb.path.rfind('/') + 1);
    v.tag = absl::StrCat(code == grpc::StatusCode::RESOURCE_EXHAUSTED
                             ? "refused_resource_exhausted "
                             : "refused_invalid_argument ",
                         file.substr(0, file.rfind('.')));
    if (options.bomb_message_names_size && !NamesSize(outcome.call.message, bomb)) {
      v.status_expected = false;
      v.problem = absl::StrCat(via, " of ", bomb.what, " was refused without naming the size (",
                               bomb.width, "x", bomb.height, "); got ", got);
    }
    return v;
  }
  if (may_be_refused) return v;
  v.status_expected = false;
  if (code == grpc::StatusCode::OK) {
    v.tag = "served";
    v.problem = absl::StrCat(via, " of ", bomb.what,
                             " was decoded and scored (OK): no limit held on what it decodes");
  } else {
    v.tag = "other";
    v.problem = absl::StrCat(via, " of ", bomb.what,
                             " must be refused with RESOURCE_EXHAUSTED or INVALID_ARGUMENT; got ",
                             got);
  }
  return v;
}

}  // namespace

Verdict JudgeLadder(const StreamPlan& plan, const LadderOutcome& outcome, const LadderMedia& media,
                    const LadderJudgeOptions& options, const JudgeContext& context) {
  const LadderPlan& lp = plan.ladder;
  const StreamOutcome& call = outcome.call;
  const bool ok = call.code == grpc::StatusCode::OK;
  const bool in_shutdown = context.shutdown_started && call.finished >= context.shutdown_at;
  const bool may_be_refused = in_shutdown && outcome.responses.empty() &&
                              call.code == grpc::StatusCode::UNAVAILABLE;
  if (lp.fault == LadderFault::kDecodeBomb) {
    return JudgeBomb(plan, outcome, media, options, may_be_refused);
  }
  Verdict v;
  if (lp.fault == LadderFault::kVanish) {
    v.tag = lp.vanish_after == 0 ? "before_first_result" : "mid_ladder";
    if (!call.vanished) {
      v.status_expected = false;
      v.problem = absl::StrCat("the vanishing ladder client did not get to vanish: ",
                               call.child_error);
    }
    return v;
  }

  const LadderSet& set = media.sets[lp.set];
  const uint64_t per_rendition = lp.FramesPerRendition(set.frames);
  const LadderTally t = Tally(lp, set, outcome.responses);
  v.frames_verified = t.verified;
  v.frames_misordered = t.misordered;
  v.frames_wrong = t.wrong;
  v.problem = t.problem;
  const bool complete = Complete(t, per_rendition);
  const int64_t missing =
      std::max<int64_t>(0, static_cast<int64_t>(lp.FrameResults(set.frames) - t.results()));
  const std::string got = absl::StrCat(StatusCodeName(call.code), ": ", call.message);
  auto unexpected = [&](const std::string& why) {
    v.status_expected = false;
    if (v.problem.empty()) v.problem = absl::StrCat(why, "; got ", got);
  };
  const bool cancelled = lp.fault == LadderFault::kCancel ||
                         (lp.fault == LadderFault::kSlowUrl && lp.cancel_at > absl::ZeroDuration());

  if (cancelled) {
    v.tag = lp.fault == LadderFault::kSlowUrl ? "cancelled_mid_fetch"
                                              : CancelPointName(lp.cancel_point);
    if (ok && complete) v.tag = "finished_first";
    if (!(call.code == grpc::StatusCode::CANCELLED || (ok && complete) || may_be_refused)) {
      unexpected("a cancelled ladder must end CANCELLED (or OK when it finished first)");
    }
  } else if (lp.fault == LadderFault::kNone || lp.fault == LadderFault::kSlowUrl) {
    if (ok && !complete) {
      v.frames_lost = static_cast<int>(missing);
      if (v.problem.empty()) {
        v.problem = absl::StrFormat("status OK but %d of %d results%s", t.results(),
                                    lp.FrameResults(set.frames),
                                    t.ladder_summary ? "" : " and no ladder summary");
      }
    } else if (!ok && !may_be_refused) {
      v.frames_lost = static_cast<int>(missing);
      v.stalled = call.code == grpc::StatusCode::DEADLINE_EXCEEDED;
      unexpected("a healthy ladder must end OK");
    }
  } else if (lp.fault == LadderFault::kDeadline) {
    v.tag = ok && complete ? "finished_first" : "expired";
    if (!(call.code == grpc::StatusCode::DEADLINE_EXCEEDED || (ok && complete) ||
          may_be_refused)) {
      unexpected("a ladder past its deadline must end DEADLINE_EXCEEDED (or OK when done)");
    }
  } else if (lp.fault == LadderFault::kStalledReader) {
    if (call.code == grpc::StatusCode::DEADLINE_EXCEEDED ||
        call.code == grpc::StatusCode::CANCELLED) {
      v.tag = "ended_by_server";
    } else if (ok) {
      // The client read nothing for idle timeout + margin. A server that ends such calls has
      // done so by the middle of the margin; one that finished later waited on the client.
      const absl::Duration end_by = (outcome.stopped_reading_at - call.started) +
                                    options.server_idle_timeout +
                                    (lp.stall - options.server_idle_timeout) / 2;
      const bool finished_after_resume =
          t.ladder_summary && t.ladder_elapsed_seconds >= absl::ToDoubleSeconds(end_by);
      if (!complete) {
        v.frames_lost = static_cast<int>(missing);
        unexpected("a stalled reader's ladder ended OK without every result");
      } else if (finished_after_resume) {
        v.tag = "kept_open";
        unexpected(absl::StrFormat(
            "the client read nothing for %s and the server did not end the call (--stream_idle_"
            "timeout=%s); the ladder finished after %.1f s once it read again",
            absl::FormatDuration(lp.stall), absl::FormatDuration(options.server_idle_timeout),
            t.ladder_elapsed_seconds));
      } else {
        // Every result fitted in the buffers before the idle timeout: nothing was tested.
        v.tag = "not_blocked";
      }
    } else if (!may_be_refused) {
      unexpected("a stalled reader must be ended by the server with DEADLINE_EXCEEDED or "
                 "CANCELLED after its idle timeout");
    }
  }
  v.url_fetches_after_cancel = outcome.url_fetches_after_cancel;
  if (outcome.url_fetches_after_cancel > 0 && v.problem.empty()) {
    v.problem = absl::StrCat("the server went on fetching after the call was cancelled: ",
                             outcome.url_detail);
  }
  return v;
}

}  // namespace ssimd::fault_load
