#include "server/stream_pipeline.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/types/span.h"
#include "server/grpc_convert.h"
#include "server/metric_labels.h"

namespace ssimd {
namespace {

std::string FeatureLabel(const FeatureSet& features) {
  std::string out;
  for (const std::string& arg : FormatFeatureArgs(features)) {
    absl::StrAppend(&out, out.empty() ? "" : " ", arg);
  }
  return out;
}

const char* BackendName(BackendPreference p) {
  switch (p) {
    case BackendPreference::kAuto:
      return "auto";
    case BackendPreference::kGpu:
      return "gpu";
    case BackendPreference::kCpu:
      return "cpu";
  }
  return "auto";
}

}  // namespace

StreamPipeline::StreamPipeline(ServiceContext* ctx, Host* host, absl::string_view method,
                               std::string peer, absl::Time deadline)
    : ctx_(ctx),
      host_(host),
      method_(method),
      stream_id_(absl::StrCat(ctx->next_stream_id.fetch_add(1))),
      peer_(std::move(peer)),
      deadline_(deadline) {
  ctx_->metrics->StreamStarted();
  {
    absl::MutexLock lock(&mu_);
    started_ = absl::Now();
  }
  if (ctx_->streams != nullptr) ctx_->streams->Add(this);
}

StreamPipeline::~StreamPipeline() {
  if (ctx_->streams != nullptr) ctx_->streams->Remove(this);
}

void StreamPipeline::Start() {
  Actions actions;
  {
    absl::MutexLock lock(&mu_);
    actions = Plan();
  }
  Execute(std::move(actions));
}

bool StreamPipeline::configured() const {
  absl::MutexLock lock(&mu_);
  return configured_;
}

uint64_t StreamPipeline::frames_fetched() const {
  absl::MutexLock lock(&mu_);
  return frames_fetched_;
}

void StreamPipeline::FetchedConfig(ClipSettings settings) {
  Actions actions;
  {
    absl::MutexLock lock(&mu_);
    fetching_ = false;
    settings_ = std::move(settings);
    temporal_ = std::make_unique<TemporalFinish>(settings_.features);
    configured_ = true;
    started_ = absl::Now();
    LogFields labels = {{"method", method_}, {"peer", peer_}};
    if (!settings_.title_id.empty()) labels.emplace_back("title", settings_.title_id);
    if (!settings_.rung.empty()) labels.emplace_back("rung", settings_.rung);
    LogFields client_labels(settings_.labels.begin(), settings_.labels.end());
    log_ = std::make_unique<StreamLog>(stream_id_, std::move(labels), std::move(client_labels));
    const Geometry& g = settings_.geometry;
    log_->Info("stream started",
               {{"geometry", absl::StrFormat("%dx%d", g.width, g.height)},
                {"bit_depth", absl::StrCat(g.bit_depth)},
                {"features", FeatureLabel(settings_.features)},
                {"backend", BackendName(settings_.backend)}});
    actions = Plan();
  }
  Execute(std::move(actions));
}

void StreamPipeline::FetchedFrame(uint64_t index, ReceivedPlanes planes) {
  Actions actions;
  bool submit = false;
  {
    absl::MutexLock lock(&mu_);
    fetching_ = false;
    if (!finish_called_ && !failure_.has_value() && !cancelled_) {
      ++frames_fetched_;
      ++in_flight_;
      ++tasks_;
      ctx_->metrics->FramesInFlightChanged(1);
      submit = true;
    }
    actions = Plan();
  }
  if (submit) {
    // A shared pointer keeps the task copyable for std::function without copying the planes.
    auto shared = std::make_shared<const ReceivedPlanes>(std::move(planes));
    std::shared_ptr<const ReceivedPlanes> previous;
    if (FeaturesReadPreviousReference(settings_.features)) {
      absl::MutexLock lock(&mu_);
      previous = std::exchange(previous_planes_, shared);
    }
    const absl::Time submitted = absl::Now();
    ctx_->pool->Submit([this, index, shared, previous, submitted] {
      Score(index, *shared, previous.get(), submitted);
    });
  }
  Execute(std::move(actions));
}

void StreamPipeline::SetUnmatchedFrames(uint64_t reference, uint64_t distorted) {
  absl::MutexLock lock(&mu_);
  unmatched_reference_ = reference;
  unmatched_distorted_ = distorted;
}

void StreamPipeline::FetchedEnd() {
  Actions actions;
  {
    absl::MutexLock lock(&mu_);
    fetching_ = false;
    input_done_ = true;
    if (!configured_ && !cancelled_) {
      FailLocked(absl::FailedPreconditionError(
          "the stream ended before its config message; send ScoreClipRequest.config first"));
    }
    actions = Plan();
  }
  Execute(std::move(actions));
}

void StreamPipeline::FetchCancelled() {
  Actions actions;
  {
    absl::MutexLock lock(&mu_);
    fetching_ = false;
    input_done_ = true;
    FailLocked(CancellationLocked());
    actions = Plan();
  }
  Execute(std::move(actions));
}

absl::Status StreamPipeline::CancellationLocked() const {
  // gRPC cancels a call whose deadline passed, and the client then sees DEADLINE_EXCEEDED: so
  // should the log and the metrics. Any other cancel comes from the client, or from gRPC itself
  // refusing a message (see ADR 0067); the server is not told which.
  if (DeadlinePassed()) {
    return absl::DeadlineExceededError(absl::StrFormat(
        "the client's deadline passed after %d frames were answered", next_write_));
  }
  return absl::CancelledError(absl::StrFormat(
      "the call was cancelled after %d frames were answered: by the client, or by gRPC for a "
      "message above its transport limit or compressed (compression is refused)",
      next_write_));
}

void StreamPipeline::FetchFailed(const absl::Status& status) {
  Actions actions;
  {
    absl::MutexLock lock(&mu_);
    fetching_ = false;
    input_done_ = true;
    FailLocked(status);
    actions = Plan();
  }
  Execute(std::move(actions));
}

void StreamPipeline::WriteDone(bool ok) {
  Actions actions;
  {
    absl::MutexLock lock(&mu_);
    write_in_progress_ = false;
    current_write_.reset();
    if (!ok) {
      // The client went away (cancelled, its deadline passed, or the connection broke).
      FailLocked(DeadlinePassed()
                     ? CancellationLocked()
                     : absl::CancelledError("the client stopped receiving results"));
    }
    actions = Plan();
  }
  Execute(std::move(actions));
}

void StreamPipeline::Cancelled() {
  Actions actions;
  {
    absl::MutexLock lock(&mu_);
    if (!finish_called_) FailLocked(CancellationLocked());
    cancelled_ = true;
    stopping_.store(true, std::memory_order_release);
    actions = Plan();
  }
  Execute(std::move(actions));
}

void StreamPipeline::Done() {
  Actions actions;
  {
    absl::MutexLock lock(&mu_);
    done_ = true;
    actions = Plan();
  }
  Execute(std::move(actions));
}

void StreamPipeline::HoldTask() {
  absl::MutexLock lock(&mu_);
  ++tasks_;
}

void StreamPipeline::ReleaseTask() {
  Actions actions;
  {
    absl::MutexLock lock(&mu_);
    --tasks_;
    actions = Plan();
  }
  Execute(std::move(actions));
}

bool StreamPipeline::DeadlinePassed() const { return ClientDeadlinePassed(deadline_); }

bool StreamPipeline::TryHold() {
  absl::MutexLock lock(&mu_);
  if (finish_called_ || destroyed_) return false;
  ++tasks_;
  return true;
}

absl::Duration StreamPipeline::WaitingOnClient(absl::Time now) const {
  absl::MutexLock lock(&mu_);
  if (finish_called_) return absl::ZeroDuration();
  absl::Duration waited = absl::ZeroDuration();
  if (fetching_ && host_->HostFetchWaitsOnClient()) waited = now - fetch_started_;
  if (write_in_progress_) waited = std::max(waited, now - write_started_);
  return waited;
}

void StreamPipeline::Abort(const absl::Status& status) {
  Actions actions;
  bool cancel_host = false;
  {
    absl::MutexLock lock(&mu_);
    if (finish_called_ || cancelled_) return;
    FailLocked(status);
    // A write the client never takes would keep Finish waiting forever: cancel the call, which
    // ends the write (the client, not reading, sees CANCELLED; the log keeps `status`).
    if (write_in_progress_ && !host_cancel_requested_) {
      host_cancel_requested_ = true;
      cancel_host = true;
    }
    actions = Plan();
  }
  if (cancel_host) host_->HostCancel();
  Execute(std::move(actions));
}

void StreamPipeline::AbortIdle(absl::Duration waited, absl::Duration timeout) {
  std::string awaited;
  {
    absl::MutexLock lock(&mu_);
    const bool fetch_waits = fetching_ && host_->HostFetchWaitsOnClient();
    if (write_in_progress_ && (!fetch_waits || write_started_ <= fetch_started_)) {
      awaited = summary_sent_ ? std::string("for the client to take the clip summary")
                              : absl::StrFormat("for the client to take the result of frame %d",
                                                next_write_ - 1);
    } else if (!configured_) {
      awaited = "for the config (the stream's first message)";
    } else {
      awaited = absl::StrFormat("for frame %d", frames_fetched_);
    }
  }
  Abort(absl::DeadlineExceededError(
      absl::StrFormat("the stream was idle for %s, waiting %s (--stream_idle_timeout=%s)",
                      absl::FormatDuration(absl::Trunc(waited, absl::Seconds(1))), awaited,
                      absl::FormatDuration(timeout))));
}

void StreamPipeline::FetchFailedAfterPending(const absl::Status& status) {
  Actions actions;
  {
    absl::MutexLock lock(&mu_);
    fetching_ = false;
    input_done_ = true;
    deferred_failure_ = status;
    actions = Plan();
  }
  Execute(std::move(actions));
}

void StreamPipeline::FailLocked(const absl::Status& status) {
  if (!failure_.has_value()) failure_ = status;
  stopping_.store(true, std::memory_order_release);
}

void StreamPipeline::FinishLocked(const grpc::Status& status) {
  finish_called_ = true;
  stopping_.store(true, std::memory_order_release);
  const std::string code = StatusCodeName(status.error_code());
  ctx_->metrics->RecordRpc(method_, code);
  ctx_->metrics->StreamFinished();
  if (in_flight_ > 0) ctx_->metrics->FramesInFlightChanged(-in_flight_);
  in_flight_ = 0;
  ready_.clear();
  previous_planes_.reset();
  ctx_->active_streams.fetch_sub(1);
  LogFields fields = {{"status", code}, {"frames", absl::StrCat(accumulator_.frames())}};
  if (!status.ok()) fields.emplace_back("error", status.error_message());
  if (log_ != nullptr) {
    log_->Finished(code, fields);
  } else {
    // The stream failed before its config: no stream log exists yet.
    fields.emplace_back("method", method_);
    fields.emplace_back("peer", peer_);
    fields.emplace_back("stream", stream_id_);
    LogEvent(status.ok() ? spdlog::level::info : spdlog::level::warn, "stream finished", fields);
  }
}

std::unique_ptr<v1::ScoreClipResponse> StreamPipeline::SummaryLocked() {
  auto response = std::make_unique<v1::ScoreClipResponse>();
  v1::ClipSummary* summary = response->mutable_summary();
  accumulator_.FillSummary(settings_.percentiles, summary);
  summary->set_elapsed_seconds(absl::ToDoubleSeconds(absl::Now() - started_));
  summary->set_unmatched_reference_frames(unmatched_reference_);
  summary->set_unmatched_distorted_frames(unmatched_distorted_);
  if (!settings_.title_id.empty()) {
    for (const auto& [metric, mean] : accumulator_.Means()) {
      ctx_->metrics->RecordTitleScore(settings_.title_id, metric, mean);
    }
  }
  return response;
}

void StreamPipeline::AdvanceTemporalLocked() {
  if (temporal_ == nullptr) return;
  for (auto it = ready_.find(temporal_->frames_added()); it != ready_.end();
       it = ready_.find(temporal_->frames_added())) {
    if (absl::Status added = temporal_->Add(it->second.result.scores); !added.ok()) {
      FailLocked(added);
      return;
    }
  }
  if (input_done_ && temporal_->frames_added() == frames_fetched_) {
    temporal_->EndOfInput();
    previous_planes_.reset();
  }
}

StreamPipeline::Actions StreamPipeline::Plan() {
  Actions a;
  if (!finish_called_ && !failure_.has_value() && !cancelled_) AdvanceTemporalLocked();
  if (!finish_called_) {
    if (failure_.has_value() || cancelled_) {
      if (!write_in_progress_ && ops_starting_ == 0) {
        const grpc::Status status =
            failure_.has_value()
                ? ToGrpcStatus(*failure_)
                : grpc::Status(grpc::StatusCode::CANCELLED,
                               "the stream was cancelled (by the client, its deadline, or a "
                               "server shutdown)");
        FinishLocked(status);
        a.finish = status;
      }
    } else {
      if (!write_in_progress_) {
        auto it = temporal_ != nullptr && next_write_ < temporal_->frames_final()
                      ? ready_.find(next_write_)
                      : ready_.end();
        absl::StatusOr<FrameScores> completed =
            it != ready_.end() ? temporal_->Complete(next_write_, it->second.result.scores)
                               : FrameScores();
        if (!completed.ok()) {
          FailLocked(completed.status());
          return Plan();
        }
        ctx_->metrics->RecordScores(settings_.features, *completed);
        if (it != ready_.end()) {
          ScoreResult& result = it->second.result;
          accumulator_.Add(result.scores, result.sums, result.backend,
                           !result.fallback_reason.empty());
          current_write_ = std::make_unique<v1::ScoreClipResponse>();
          FillFrameResult(next_write_, result, current_write_->mutable_frame());
          ready_.erase(it);
          ++next_write_;
          --in_flight_;
          ctx_->metrics->FramesInFlightChanged(-1);
          write_in_progress_ = true;
          write_started_ = absl::Now();
          a.write = current_write_.get();
        } else if (input_done_ && in_flight_ == 0 && deferred_failure_.has_value()) {
          // Every frame before the failure is written: now fail, as FetchFailed would have.
          FailLocked(*deferred_failure_);
          deferred_failure_.reset();
          return Plan();
        } else if (input_done_ && in_flight_ == 0 && !summary_sent_) {
          current_write_ = SummaryLocked();
          summary_sent_ = true;
          write_in_progress_ = true;
          write_started_ = absl::Now();
          a.write = current_write_.get();
        } else if (summary_sent_) {
          FinishLocked(grpc::Status::OK);
          a.finish = grpc::Status::OK;
        }
      }
      // Frames that wait only for their successors' scores (TemporalLag) do not hold back the
      // fetch of those successors.
      if (!a.finish.has_value() && !fetching_ && !input_done_ &&
          in_flight_ < ctx_->options.max_frames_in_flight + TemporalLag(settings_.features)) {
        fetching_ = true;
        fetch_started_ = absl::Now();
        a.fetch = true;
      }
    }
  }
  if (a.fetch || a.write != nullptr) ++ops_starting_;
  if (done_ && tasks_ == 0 && ops_starting_ == 0 && !destroyed_) {
    destroyed_ = true;
    a.destroy = true;
  }
  return a;
}

void StreamPipeline::Execute(Actions actions) {
  if (actions.fetch || actions.write != nullptr) {
    if (actions.write != nullptr) host_->HostWrite(actions.write);
    if (actions.fetch) host_->HostFetch();
    Actions next;
    {
      absl::MutexLock lock(&mu_);
      --ops_starting_;
      next = Plan();
    }
    Execute(std::move(next));
    return;
  }
  if (actions.finish.has_value()) {
    host_->HostFinish(*actions.finish);
    return;  // OnDone may already have run and deleted this pipeline
  }
  if (actions.destroy) host_->HostDestroy();
}

void StreamPipeline::Score(uint64_t index, const ReceivedPlanes& planes,
                           const ReceivedPlanes* previous, absl::Time submitted) {
  if (stopping()) {
    Scored(index, absl::CancelledError("stream stopped"));
    return;
  }
  const absl::Duration pool_wait = absl::Now() - submitted;
  // The backends check the planes' sizes and samples themselves, while copying them where they
  // copy anyway: a separate pass here would read every frame once more.
  // The chroma's sizes were checked on arrival (ClipReactor::OnFrame).
  absl::StatusOr<std::optional<FrameChroma>> chroma =
      ChromaToScore(settings_.geometry, settings_.features, planes, "frame.");
  absl::StatusOr<ScoreResult> result =
      chroma.ok() ? ctx_->dispatcher->ScorePieces(
                        settings_.geometry, settings_.features,
                        {&planes.reference, &planes.distorted, nullptr,
                         chroma->has_value() ? &**chroma : nullptr,
                         previous != nullptr ? &previous->reference : nullptr},
                        settings_.backend)
                  : absl::StatusOr<ScoreResult>(chroma.status());
  if (result.ok()) {
    result->timings.queue_wait += absl::ToDoubleSeconds(pool_wait);
    ctx_->metrics->RecordFrame(settings_.features, *result);
    if (!result->fallback_reason.empty() && log_ != nullptr && !stopping()) {
      log_->Fallback(FeatureSetLabel(settings_.features), result->fallback_reason);
    }
  } else {
    result = absl::Status(result.status().code(),
                          absl::StrFormat("frame %d: %s", index, result.status().message()));
  }
  Scored(index, std::move(result));
}

void StreamPipeline::Scored(uint64_t index, absl::StatusOr<ScoreResult> result) {
  Actions actions;
  {
    absl::MutexLock lock(&mu_);
    --tasks_;
    if (!result.ok()) {
      if (!finish_called_ && !cancelled_) FailLocked(result.status());
    } else if (!finish_called_ && !failure_.has_value() && !cancelled_) {
      ready_.emplace(index, Ready{*std::move(result)});
    }
    actions = Plan();
  }
  Execute(std::move(actions));
}

}  // namespace ssimd
