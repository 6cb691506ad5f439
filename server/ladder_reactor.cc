#include "server/ladder_reactor.h"

#include <unistd.h>

#include <algorithm>
#include <deque>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/blocking_counter.h"
#include "absl/time/clock.h"
#include "base/client_text.h"
#include "base/prefixed_status.h"
#include "base/status_macros.h"
#include "engine/features.h"
#include "engine/media/luma_scale_check.h"
#include "engine/media/read_ahead_input.h"
#include "engine/media/video_input.h"
#include "engine/plane_pieces.h"
#include "engine/psnr_scores.h"
#include "server/file_inputs.h"
#include "server/grpc_convert.h"
#include "server/input_resolver.h"
#include "server/logging.h"
#include "server/rendition_report.h"

namespace ssimd {
namespace {

constexpr const char* kMethod = "ScoreLadder";

std::string RungField(int index) { return absl::StrCat("renditions[", index, "]"); }

}  // namespace

bool LadderReactor::AnyRungReadsChroma(const FeatureSet& ladder) const {
  // Where a picture has chroma; the layouts are known only once the files are open.
  if (FeaturesReadChroma(ladder, ChromaFormat::k444)) return true;
  for (const v1::Rendition& rendition : request_.renditions()) {
    if (!rendition.has_features() || rendition.features().ByteSizeLong() == 0) continue;
    absl::StatusOr<FeatureSet> features =
        ParseFeatures(rendition.features(), "", *ctx_->options.vmaf_models);
    if (features.ok() && FeaturesReadChroma(*features, ChromaFormat::k444)) return true;
  }
  return false;
}

LadderReactor::LadderReactor(ServiceContext* ctx, grpc::CallbackServerContext* call,
                             const v1::ScoreLadderRequest& request)
    : ctx_(ctx),
      request_(request),
      call_(call),
      peer_(call->peer()),
      started_(absl::Now()),
      deadline_(absl::FromChrono(call->deadline())) {
  ctx_->metrics->StreamStarted();
  if (ctx_->streams != nullptr) ctx_->streams->Add(this);
  driver_ = std::thread([this] { Run(); });
}

LadderReactor::~LadderReactor() {
  if (ctx_->streams != nullptr) ctx_->streams->Remove(this);
}

void LadderReactor::OnWriteDone(bool ok) {
  absl::MutexLock lock(&mu_);
  write_done_ = true;
  write_ok_ = ok;
  write_in_progress_ = false;
  if (ok) ++messages_written_;
}

void LadderReactor::OnCancel() { cancelled_.store(true, std::memory_order_release); }

void LadderReactor::OnDone() {
  {
    absl::MutexLock lock(&mu_);
    done_ = true;
  }
  DestroyIfUnused();
}

bool LadderReactor::TryHold() {
  absl::MutexLock lock(&mu_);
  if (finish_called_ || done_) return false;
  ++holds_;
  return true;
}

void LadderReactor::Release() {
  {
    absl::MutexLock lock(&mu_);
    --holds_;
  }
  DestroyIfUnused();
}

void LadderReactor::DestroyIfUnused() {
  {
    absl::MutexLock lock(&mu_);
    if (!done_ || holds_ > 0 || destroyed_) return;
    destroyed_ = true;
  }
  // Finish is the driver's last act, and gRPC may call OnDone from inside it, on the driver
  // itself; from any other thread the driver has called Finish and is about to return.
  if (driver_.get_id() == std::this_thread::get_id()) {
    driver_.detach();
  } else {
    driver_.join();
  }
  delete this;
}

absl::Duration LadderReactor::WaitingOnClient(absl::Time now) const {
  absl::MutexLock lock(&mu_);
  if (finish_called_ || !write_in_progress_) return absl::ZeroDuration();
  return now - write_started_;
}

void LadderReactor::Abort(const absl::Status& status) {
  bool cancel_call = false;
  {
    absl::MutexLock lock(&mu_);
    if (finish_called_ || abort_status_.has_value()) return;
    abort_status_ = status;
    aborted_.store(true, std::memory_order_release);
    // The driver waits on a write the client may never take: only cancelling the call ends it.
    if (write_in_progress_ && !cancel_requested_) {
      cancel_requested_ = true;
      cancel_call = true;
      cancelling_ = true;  // Conclude waits: the call's context lives until OnDone
    }
  }
  if (!cancel_call) return;
  call_->TryCancel();
  absl::MutexLock lock(&mu_);
  cancelling_ = false;
}

void LadderReactor::AbortIdle(absl::Duration waited, absl::Duration timeout) {
  uint64_t taken = 0;
  {
    absl::MutexLock lock(&mu_);
    taken = messages_written_;
  }
  Abort(absl::DeadlineExceededError(absl::StrFormat(
      "the ladder was idle for %s, waiting for the client to take a result (%d taken so far) "
      "(--stream_idle_timeout=%s)",
      absl::FormatDuration(absl::Trunc(waited, absl::Seconds(1))), taken,
      absl::FormatDuration(timeout))));
}

bool LadderReactor::Stopping() const {
  return cancelled_.load(std::memory_order_acquire) || aborted_.load(std::memory_order_acquire);
}

void LadderReactor::Run() {
  absl::Status status = Open();
  if (status.ok()) status = ScoreRounds();
  if (status.ok()) status = CountUnmatched();
  if (status.ok()) status = WriteSummaries();
  Conclude(status);
}

absl::Status LadderReactor::Open() {
  if (!ctx_->inputs->any_enabled()) {
    return absl::FailedPreconditionError(
        "ScoreLadder is disabled on this server: start it with --files_root=DIR, "
        "--upload_dir=DIR or --allow_url_prefix=URL");
  }
  const int renditions = request_.renditions_size();
  if (renditions < 1 || renditions > kMaxLadderRenditions) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "renditions: expected 1 to %d renditions, got %d", kMaxLadderRenditions, renditions));
  }
  std::set<std::string> names;
  for (int i = 0; i < renditions; ++i) {
    const std::string& name = request_.renditions(i).name();
    if (name.empty() || !names.insert(name).second) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s.name: %s; every rendition needs a name of its own (its rung)", RungField(i),
          name.empty() ? "empty" : absl::StrCat(QuoteClientText(name), " is used twice")));
    }
  }
  // Inputs first, as in ScoreFiles: nothing else is looked at for a path outside the root. All
  // are checked before any is opened, so that a refused rendition costs no fetch of the others.
  SSIMD_RETURN_IF_ERROR(ctx_->inputs->Check(request_.source_path(), "source_path"));
  for (int i = 0; i < renditions; ++i) {
    SSIMD_RETURN_IF_ERROR(
        ctx_->inputs->Check(request_.renditions(i).path(), RungField(i) + ".path"));
  }
  // The fetches stop when the call ends or is aborted (the end of a shutdown's grace period), and
  // take --url_call_timeout at most all together.
  const FetchControl control = ctx_->inputs->ControlForCall([this] { return Stopping(); });
  absl::StatusOr<int> source_fd =
      ctx_->inputs->OpenForRead(request_.source_path(), "source_path", control);
  if (!source_fd.ok()) return source_fd.status();
  std::vector<int> fds;
  absl::Status status;
  for (int i = 0; i < renditions && status.ok(); ++i) {
    absl::StatusOr<int> fd =
        ctx_->inputs->OpenForRead(request_.renditions(i).path(), RungField(i) + ".path", control);
    if (fd.ok()) {
      fds.push_back(*fd);
    } else {
      status = fd.status();
    }
  }
  if (!status.ok()) {
    ::close(*source_fd);
    for (int fd : fds) ::close(fd);
    return status;
  }
  std::optional<Geometry> geometry;
  if (request_.config().has_geometry()) {
    absl::StatusOr<Geometry> parsed = ParseGeometry(request_.config().geometry(), "config.geometry");
    if (parsed.ok()) {
      geometry = *parsed;
    } else {
      status = parsed.status();
    }
  }
  absl::StatusOr<ClipSettings> ladder = ParseClipOptions(request_.config(), ctx_->options, "config");
  absl::StatusOr<ScalerChoice> scaler = ParseUpscale(request_.upscale(), "upscale");
  if (ladder.ok()) source_features_ = ladder->features;
  if (status.ok() && !ladder.ok()) status = ladder.status();
  if (status.ok() && !scaler.ok()) status = scaler.status();
  // Each input reserves its pictures' memory before its first frame is decoded, waiting on this
  // driver thread while other calls hold the budget (docs/adr/0084).
  int64_t reserved_by_call = 0;
  InputOpening opening = ctx_->OpeningForCall([this] { return Stopping(); }, &reserved_by_call);
  // Luma planes held per input: those ReadAhead() decodes ahead and one in each round in flight.
  opening.luma_planes = [](const Geometry&) {
    return static_cast<int>(kReadAheadDepth + kMaxRoundsInFlight);
  };
  if (ladder.ok()) opening.with_chroma = AnyRungReadsChroma(ladder->features);
  if (status.ok()) {
    absl::StatusOr<OpenedInput> source =
        OpenFileInput(*source_fd, ReaderNameOfInput(request_.source_path()), "source_path",
                      geometry, opening);
    if (source.ok()) {
      source_ = std::move(source->input);
      source_decoded_ = source->decoded;
    } else {
      status = source.status();
    }
  } else {
    ::close(*source_fd);
  }
  // Each rendition takes its descriptor over, also those opened after a failure.
  for (int i = 0; i < renditions; ++i) {
    auto rung = std::make_unique<Rung>();
    rung->name = request_.renditions(i).name();
    rungs_.push_back(std::move(rung));
    if (!status.ok()) {
      ::close(fds[i]);
      continue;
    }
    opening.scaled_to = source_->geometry();
    absl::StatusOr<OpenedInput> input =
        OpenFileInput(fds[i], ReaderNameOfInput(request_.renditions(i).path()),
                      RungField(i) + ".path", std::nullopt, opening);
    if (!input.ok()) {
      status = input.status();
      continue;
    }
    status = OpenRung(i, *std::move(input), *ladder, *scaler);
  }
  if (!status.ok()) return status;
  for (const auto& rung : rungs_) {
    if (rung->input->keeps_chroma()) source_->KeepChroma();
  }
  if (absl::Status s = source_->Skip(request_.source_start_frame()); !s.ok()) {
    return WithField(s, "source_path");
  }
  ReadAhead();
  std::vector<std::string> listed;
  for (const auto& rung : rungs_) listed.push_back(rung->name);
  LogEvent(spdlog::level::info, "ladder started",
           {{"method", kMethod},
            {"peer", peer_},
            {"title", ladder->title_id},
            {"source", ReaderNameOfInput(request_.source_path())},
            {"renditions", absl::StrJoin(listed, ",")}});
  return absl::OkStatus();
}

absl::Status LadderReactor::OpenRung(int index, OpenedInput input, const ClipSettings& ladder,
                                     const ScalerChoice& scaler) {
  const v1::Rendition& rendition = request_.renditions(index);
  Rung& rung = *rungs_[index];
  const std::string field = RungField(index) + ".path";
  if (absl::Status s = FitToReference(*source_, "source_path", input, field, scaler); !s.ok()) {
    return s;
  }
  rung.input = std::move(input.input);
  rung.decoded = input.decoded;
  rung.settings = ladder;
  rung.settings.geometry = source_->geometry();
  rung.settings.rung = rung.name;
  for (const auto& [key, value] : rendition.labels()) rung.settings.labels[key] = value;
  if (rendition.has_features() && rendition.features().ByteSizeLong() > 0) {
    absl::StatusOr<FeatureSet> features =
        ParseFeatures(rendition.features(), RungField(index) + ".features",
                      *ctx_->options.vmaf_models);
    if (!features.ok()) return features.status();
    rung.settings.features = *features;
  }
  if (FeaturesReadChroma(rung.settings.features, rung.settings.geometry.chroma)) {
    SSIMD_RETURN_IF_ERROR(KeepChromaLike(*source_, "source_path", *rung.input, field));
  }
  if (absl::Status s = ctx_->dispatcher->CheckRequest(
          rung.settings.geometry, rung.settings.features, rung.settings.backend);
      !s.ok()) {
    return WithField(s, RungField(index));
  }
  ChooseUpscale(rung);
  rung.temporal = std::make_unique<TemporalFinish>(rung.settings.features);
  return WithField(rung.input->Skip(rendition.start_frame()), field);
}

void LadderReactor::ChooseUpscale(Rung& rung) {
  DecodedInput* decoded = rung.decoded;
  if (decoded == nullptr) return;  // raw and .y4m files are never scaled
  const Geometry& own = decoded->decoded_geometry();
  if (own.width == rung.settings.geometry.width && own.height == rung.settings.geometry.height) {
    return;
  }
  rung.upscale = "libswscale";
  const ScorerUpscale mode = ctx_->options.scorer_upscale;
  const bool on_gpu = ctx_->dispatcher->WouldUseGpu(rung.settings.geometry, rung.settings.features,
                                                    rung.settings.backend);
  if (mode == ScorerUpscale::kNever || (mode == ScorerUpscale::kAuto && !on_gpu)) {
    ctx_->metrics->RecordUpscale(rung.upscale);
    return;
  }
  const CheckedPlan checked = decoded->UpscaleOnScorer();
  if (checked.plan != nullptr) {
    rung.upscale = "scorer";
    rung.upscale_on_scorer = true;
  } else {
    rung.upscale_fallback_reason = std::string(checked.why.message());
    ctx_->metrics->RecordUpscaleFallback(UpscaleRefusalLabel(checked.refusal));
    LogEvent(spdlog::level::info, "upscale stays with libswscale",
             {{"method", kMethod},
              {"peer", peer_},
              {"rendition", rung.name},
              {"reason", rung.upscale_fallback_reason}});
  }
  ctx_->metrics->RecordUpscale(rung.upscale);
}

void LadderReactor::KeepPicturesOnDevice() {
  if (!ctx_->options.decoded_on_device || ctx_->hw_decode == nullptr) return;
  bool all_on_gpu = true;
  for (auto& rung : rungs_) {
    const bool on_gpu = ctx_->dispatcher->WouldUseGpu(
        rung->settings.geometry, rung->settings.features, rung->settings.backend);
    all_on_gpu = all_on_gpu && on_gpu;
    if (on_gpu && rung->decoded != nullptr) rung->decoded->KeepPicturesOnDevice();
  }
  // A source picture that every rendition's scorer reads from the device.
  if (all_on_gpu && source_decoded_ != nullptr) source_decoded_->KeepPicturesOnDevice();
}

void LadderReactor::ReadAhead() {
  KeepPicturesOnDevice();
  // Buffers in circulation: per input, the frames waiting and one per round in flight.
  buffers_ = std::make_shared<LumaBufferPool>((rungs_.size() + 1) *
                                              (kReadAheadDepth + RoundsInFlight()));
  // Reading starts: the decoded files are the read-ahead's from now on.
  source_ = std::make_unique<ReadAheadInput>(std::move(source_), kReadAheadDepth, buffers_);
  source_decoded_ = nullptr;
  for (auto& rung : rungs_) {
    rung->input =
        std::make_unique<ReadAheadInput>(std::move(rung->input), kReadAheadDepth, buffers_);
    rung->decoded = nullptr;
  }
}

size_t LadderReactor::RoundsInFlight() const {
  // Enough rounds to give every worker a pair when the ladder has fewer renditions than the pool
  // has threads; at least two, so that writing one round overlaps with scoring the next; at most
  // four (each holds a source frame and a picture per rendition).
  const size_t rungs = std::max<size_t>(1, rungs_.size());
  const size_t workers = static_cast<size_t>(std::max(1, ctx_->pool->size()));
  // A round kept for its source (previous_round_) counts among the rounds an input's memory
  // reservation allows.
  const size_t most = kMaxRoundsInFlight - (ReadsPreviousSource() ? 1 : 0);
  return std::clamp<size_t>((workers + rungs - 1) / rungs, 2, most);
}

bool LadderReactor::ReadsPreviousSource() const {
  for (const auto& rung : rungs_) {
    if (FeaturesReadPreviousReference(rung->settings.features)) return true;
  }
  return false;
}

absl::StatusOr<bool> LadderReactor::ReadSource(Round& round) {
  const uint64_t limit = request_.frame_count();
  if (limit > 0 && source_->frames_read() - request_.source_start_frame() >= limit) return false;
  absl::StatusOr<bool> got = source_->Read(&round.source);
  if (got.ok() && *got) RecordReadStages(*source_, source_features_, *ctx_->metrics);
  return got;
}

absl::Status LadderReactor::ReadRenditions(Round& round) {
  for (auto& rung : rungs_) {
    if (rung->ended) {
      ++rung->unmatched_source;  // this source frame has no partner in it
      continue;
    }
    RungWork work;
    work.rung = rung.get();
    absl::StatusOr<bool> got = rung->input->Read(&work.picture);
    if (!got.ok()) {
      return PrefixedStatus(got.status(),
                            absl::StrCat("rendition ", QuoteClientText(rung->name), ": "));
    }
    if (!*got) {
      rung->ended = true;
      ++rung->unmatched_source;
      continue;
    }
    RecordReadStages(*rung->input, rung->settings.features, *ctx_->metrics);
    const ReadTimes times = rung->input->last_read_times();
    rung->decode_seconds += times.decode_seconds.value_or(0);
    rung->scale_seconds += times.scale_seconds.value_or(0);
    round.work.push_back(std::move(work));
  }
  return absl::OkStatus();
}

void LadderReactor::ScoreWork(RungWork& work, const Round& round) {
  const Rung& rung = *work.rung;
  const uint64_t index = round.index;
  // Host bytes or device planes, as read; the GPU backend reads a device plane where it lies.
  const PlanePieces reference = round.source.LumaPieces();
  const PlanePieces distorted = work.picture.LumaPieces();
  const bool with_previous = round.previous_source != nullptr &&
                             FeaturesReadPreviousReference(rung.settings.features);
  const PlanePieces previous = with_previous ? round.previous_source->LumaPieces() : PlanePieces();
  // The inputs were made to keep their chroma where the rung's features read it (KeepChromaLike).
  absl::StatusOr<std::optional<FrameChroma>> chroma = PairChromaToScore(
      rung.settings.geometry, rung.settings.features, round.source.host_chroma(),
      work.picture.host_chroma(), "the source's chroma", "the rendition's chroma",
      work.picture.upscale(),
      ChromaOnDevice{round.source.device_chroma(), work.picture.device_chroma()});
  if (!chroma.ok()) {
    work.status = PrefixedStatus(chroma.status(), absl::StrFormat("rendition %s: frame %d: ",
                                                                  QuoteClientText(rung.name), index));
    return;
  }
  // A picture the rendition's plan did not fit was scaled on reading and carries no upscale.
  if (rung.upscale_on_scorer && !work.picture.needs_upscale()) {
    ctx_->metrics->RecordUpscaleFallback("frame");
  }
  absl::StatusOr<ScoreResult> result = ctx_->dispatcher->ScorePieces(
      rung.settings.geometry, rung.settings.features,
      {&reference, &distorted, work.picture.upscale(),
       chroma->has_value() ? &**chroma : nullptr, with_previous ? &previous : nullptr},
      rung.settings.backend);
  if (!result.ok()) {
    work.status = absl::Status(
        result.status().code(),
        absl::StrFormat("rendition %s: frame %d: %s", QuoteClientText(rung.name), index,
                        result.status().message()));
    return;
  }
  ctx_->metrics->RecordFrame(rung.settings.features, *result);
  work.result = *std::move(result);
}

absl::Status LadderReactor::ScoreRounds() {
  std::deque<std::unique_ptr<Round>> in_flight;
  absl::Status status = PlayRounds(in_flight);
  // Rounds left behind by an error still have tasks working on them.
  for (auto& round : in_flight) round->pending->Wait();
  // Every round is written: the renditions' last results wait for no later frame.
  for (auto& rung : rungs_) {
    if (status.ok()) status = WriteFinal(*rung, /*end=*/true);
  }
  return status;
}

absl::Status LadderReactor::PlayRounds(std::deque<std::unique_ptr<Round>>& in_flight) {
  const size_t rounds = RoundsInFlight();
  for (uint64_t index = 0;; ++index) {
    if (Stopping()) return absl::CancelledError("cancelled");
    auto round = std::make_unique<Round>();
    round->index = index;
    if (ReadsPreviousSource()) {
      const Round* previous = in_flight.empty() ? previous_round_.get() : in_flight.back().get();
      round->previous_source = previous != nullptr ? &previous->source : nullptr;
    }
    absl::StatusOr<bool> have = ReadSource(*round);
    // A source or rendition that fails: the rounds before it are delivered first.
    if (!have.ok() || !*have) {
      SSIMD_RETURN_IF_ERROR(FinishRounds(in_flight, 0));
      if (!have.ok()) return WithField(have.status(), "source_path");
      source_ended_ = true;
      return absl::OkStatus();
    }
    if (absl::Status read = ReadRenditions(*round); !read.ok()) {
      SSIMD_RETURN_IF_ERROR(FinishRounds(in_flight, 0));
      return read;
    }
    // Every rendition ended: CountUnmatched counts the rest of the source.
    if (round->work.empty()) return FinishRounds(in_flight, 0);
    round->pending = std::make_unique<absl::BlockingCounter>(static_cast<int>(round->work.size()));
    for (RungWork& work : round->work) {
      ctx_->pool->Submit([this, &work, r = round.get()] {
        ScoreWork(work, *r);
        r->pending->DecrementCount();
      });
    }
    in_flight.push_back(std::move(round));
    SSIMD_RETURN_IF_ERROR(FinishRounds(in_flight, rounds - 1));
  }
}

absl::Status LadderReactor::FinishRounds(std::deque<std::unique_ptr<Round>>& in_flight,
                                         size_t keep) {
  while (in_flight.size() > keep) {
    // Out of the queue before the wait: a round is waited for exactly once, also when a failed
    // write or score returns early (ScoreRounds waits only for the rounds still queued).
    std::unique_ptr<Round> taken = std::move(in_flight.front());
    in_flight.pop_front();
    Round& round = *taken;
    round.pending->Wait();
    for (RungWork& work : round.work) {
      if (!work.status.ok()) return work.status;
      Rung& rung = *work.rung;
      buffers_->Give(work.picture.TakeBuffer());
      if (absl::Status added = rung.temporal->Add(work.result.scores); !added.ok()) {
        return PrefixedStatus(added, absl::StrCat("rendition ", QuoteClientText(rung.name), ": "));
      }
      rung.unwritten.push_back(std::move(work.result));
      SSIMD_RETURN_IF_ERROR(WriteFinal(rung, /*end=*/false));
    }
    ++source_frames_;  // a round exists only when some rendition had a frame for it
    if (ReadsPreviousSource()) {
      // The next round reads this one's source: keep it, and let the one before go.
      if (previous_round_ != nullptr) buffers_->Give(previous_round_->source.TakeBuffer());
      previous_round_ = std::move(taken);
    } else {
      buffers_->Give(round.source.TakeBuffer());
    }
  }
  return absl::OkStatus();
}

absl::Status LadderReactor::WriteFinal(Rung& rung, bool end) {
  if (end) rung.temporal->EndOfInput();
  while (rung.temporal->frames_final() > rung.pairs && !rung.unwritten.empty()) {
    ScoreResult& result = rung.unwritten.front();
    absl::StatusOr<FrameScores> added = rung.temporal->Complete(rung.pairs, result.scores);
    if (!added.ok()) {
      return PrefixedStatus(added.status(),
                            absl::StrCat("rendition ", QuoteClientText(rung.name), ": "));
    }
    ctx_->metrics->RecordScores(rung.settings.features, *added);
    rung.accumulator.Add(result.scores, result.sums, result.backend,
                         !result.fallback_reason.empty());
    v1::ScoreLadderResponse message;
    message.mutable_frame()->set_rendition(rung.name);
    FillFrameResult(rung.pairs, result, message.mutable_frame()->mutable_result());
    ++rung.pairs;
    rung.unwritten.pop_front();
    if (!Write(message)) return absl::CancelledError("the client went away");
  }
  return absl::OkStatus();
}

absl::Status LadderReactor::CountUnmatched() {
  bool any_short = false;
  for (auto& rung : rungs_) {
    if (rung->ended) any_short = true;
  }
  // Renditions that ended early miss every remaining source frame.
  if (any_short && !source_ended_) {
    const uint64_t limit = request_.frame_count();
    const uint64_t taken = source_->frames_read() - request_.source_start_frame();
    if (limit == 0 || taken < limit) {
      absl::StatusOr<uint64_t> rest = source_->CountRemaining(limit > 0 ? limit - taken : 0);
      if (!rest.ok()) return WithField(rest.status(), "source_path");
      for (auto& rung : rungs_) {
        if (rung->ended) rung->unmatched_source += *rest;
      }
    }
  }
  // Renditions still going when the source ended (or the frame count was reached) have frames
  // left over; with a frame count only the source's frames past it are out of scope.
  for (size_t i = 0; i < rungs_.size(); ++i) {
    Rung& rung = *rungs_[i];
    if (!rung.ended && request_.frame_count() == 0) {
      absl::StatusOr<uint64_t> rest = rung.input->CountRemaining(0);
      if (!rest.ok()) return rest.status();
      rung.unmatched_rendition = *rest;
    }
    if (request_.require_equal_length() &&
        (rung.unmatched_source > 0 || rung.unmatched_rendition > 0)) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s: rendition %s has %d frames where the source has %d (after the start offsets); "
          "leave require_equal_length unset to score the common frames",
          RungField(static_cast<int>(i)), QuoteClientText(rung.name),
          rung.pairs + rung.unmatched_rendition,
          rung.pairs + rung.unmatched_source));
    }
  }
  return absl::OkStatus();
}

absl::Status LadderReactor::WriteSummaries() {
  const std::string source_fallback =
      DecodeFallbackReason(*source_, ctx_->options, ctx_->hw_decode.get());
  if (!source_fallback.empty()) ctx_->metrics->RecordDecodeFallback(source_fallback);
  for (auto& rung : rungs_) {
    v1::ScoreLadderResponse message;
    v1::RenditionSummary* summary = message.mutable_rendition_summary();
    summary->set_rendition(rung->name);
    rung->accumulator.FillSummary(rung->settings.percentiles, summary->mutable_summary());
    summary->mutable_summary()->set_unmatched_reference_frames(rung->unmatched_source);
    summary->mutable_summary()->set_unmatched_distorted_frames(rung->unmatched_rendition);
    summary->mutable_summary()->set_elapsed_seconds(absl::ToDoubleSeconds(absl::Now() - started_));
    // A rendition that ended, or one counted to its end, has been read whole.
    DescribeRendition(*rung->input, rung->ended || request_.frame_count() == 0, summary);
    summary->set_upscale(rung->upscale);
    summary->set_upscale_fallback_reason(rung->upscale_fallback_reason);
    summary->set_decode_backend(rung->input->decode_backend());
    summary->set_decode_fallback_reason(
        DecodeFallbackReason(*rung->input, ctx_->options, ctx_->hw_decode.get()));
    if (!summary->decode_fallback_reason().empty()) {
      summary->set_decode_fallback_detail(rung->input->decode_fallback_detail());
      ctx_->metrics->RecordDecodeFallback(summary->decode_fallback_reason());
    }
    ctx_->metrics->RecordRendition(ToRenditionRecord(rung->settings.title_id, *summary));
    LogRendition(*rung, *summary);
    if (!Write(message)) return absl::CancelledError("the client went away");
  }
  v1::ScoreLadderResponse message;
  v1::LadderSummary* ladder = message.mutable_ladder_summary();
  ladder->set_renditions(static_cast<uint32_t>(rungs_.size()));
  ladder->set_source_frames(source_frames_);
  ladder->set_elapsed_seconds(absl::ToDoubleSeconds(absl::Now() - started_));
  if (!Write(message)) return absl::CancelledError("the client went away");
  return absl::OkStatus();
}

void LadderReactor::LogRendition(const Rung& rung, const v1::RenditionSummary& summary) const {
  LogFields fields = {{"method", kMethod},
                      {"peer", peer_},
                      {"title", rung.settings.title_id},
                      {"rendition", rung.name},
                      {"codec", summary.codec()},
                      {"size", absl::StrFormat("%dx%d", summary.width(), summary.height())},
                      {"bitrate", absl::StrCat(summary.bitrate_bits_per_second())},
                      {"frames", absl::StrCat(rung.pairs)},
                      {"unmatched_source", absl::StrCat(rung.unmatched_source)},
                      {"unmatched_rendition", absl::StrCat(rung.unmatched_rendition)},
                      {"decode_seconds", absl::StrFormat("%.3f", rung.decode_seconds)},
                      {"scale_seconds", absl::StrFormat("%.3f", rung.scale_seconds)},
                      {"upscale", rung.upscale},
                      {"decode", summary.decode_backend()}};
  if (!summary.decode_fallback_reason().empty()) {
    fields.emplace_back("decode_fallback", summary.decode_fallback_reason());
    if (!summary.decode_fallback_detail().empty()) {
      fields.emplace_back("decode_fallback_detail", summary.decode_fallback_detail());
    }
  }
  for (const auto& [metric, pooled] : summary.summary().pooled()) {
    fields.emplace_back(absl::StrCat("mean_", metric), absl::StrFormat("%.6f", pooled.mean()));
  }
  LogEvent(spdlog::level::info, "rendition scored", fields);
}

bool LadderReactor::Write(const v1::ScoreLadderResponse& message) {
  if (Stopping()) return false;
  if (!SerializeToBuffer(message, &pending_).ok()) return false;  // only memory exhaustion
  {
    absl::MutexLock lock(&mu_);
    // An abort that came since the check above saw no write to cancel: start none.
    if (abort_status_.has_value()) return false;
    write_done_ = false;
    write_in_progress_ = true;
    write_started_ = absl::Now();
  }
  StartWrite(&pending_);
  absl::MutexLock lock(&mu_);
  mu_.Await(absl::Condition(&write_done_));
  return write_ok_;
}

absl::Status LadderReactor::EndStatus(const absl::Status& driver) const {
  {
    absl::MutexLock lock(&mu_);
    if (abort_status_.has_value()) return *abort_status_;
  }
  if (!cancelled_.load(std::memory_order_acquire)) return driver;
  // gRPC cancels a call whose deadline passed; the client then sees DEADLINE_EXCEEDED, and so
  // should the log and the metrics.
  if (ClientDeadlinePassed(deadline_)) {
    return absl::DeadlineExceededError(absl::StrFormat(
        "the client's deadline passed after %d source frames", source_frames_));
  }
  return absl::CancelledError(
      "the call was cancelled (by the client, its deadline, or a server shutdown)");
}

void LadderReactor::Conclude(const absl::Status& driver_status) {
  const absl::Status status = EndStatus(driver_status);
  const grpc::Status result = ToGrpcStatus(status);
  const std::string code = StatusCodeName(result.error_code());
  ctx_->metrics->RecordDecodeError(driver_status);
  ctx_->metrics->RecordRpc(kMethod, code);
  ctx_->metrics->StreamFinished();
  LogFields fields = {{"method", kMethod},
                      {"peer", peer_},
                      {"status", code},
                      {"source_frames", absl::StrCat(source_frames_)}};
  for (const auto& rung : rungs_) {
    fields.emplace_back(absl::StrCat("frames.", rung->name), absl::StrCat(rung->pairs));
  }
  if (!result.ok()) fields.emplace_back("error", result.error_message());
  LogEvent(result.ok() ? spdlog::level::info : spdlog::level::warn, "ladder finished", fields);
  ctx_->active_streams.fetch_sub(1);
  {
    absl::MutexLock lock(&mu_);
    mu_.Await(absl::Condition(
        +[](bool* cancelling) { return !*cancelling; }, &cancelling_));
    finish_called_ = true;
  }
  // The last use of `this` on this thread: OnDone may run (and delete it) from inside.
  Finish(result);
}

}  // namespace ssimd
