// The engine room of ScoreClip and ScoreFiles: takes frames from a source (the client's messages,
// or files), scores several at once on the worker pool, writes the results back in frame order,
// then the clip summary, then finishes the RPC.
//
// Backpressure: a frame counts as in flight from the moment it is taken from the source until its
// result is handed to gRPC for writing. At the per-stream limit the pipeline stops asking the
// source for more, so a client that sends faster than the server scores is held back by HTTP/2
// flow control rather than by a growing queue.
//
// Threading: events arrive on gRPC's threads (reads, writes, cancellation) and on worker threads
// (scored frames). Each event updates the state under one mutex and plans the next gRPC
// operations, which are started after the mutex is released, since gRPC may run a reaction inline
// from inside a Start* call.
#ifndef SSIMD_SERVER_STREAM_PIPELINE_H_
#define SSIMD_SERVER_STREAM_PIPELINE_H_

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "engine/scorer.h"
#include "engine/vmaf/temporal_finish.h"
#include "grpcpp/grpcpp.h"
#include "proto/ssimd/v1/ssimd.pb.h"
#include "proto/clip_accumulator.h"
#include "server/logging.h"
#include "server/request_parsing.h"
#include "server/service_context.h"
#include "server/stream_registry.h"
#include "server/wire_request.h"

namespace ssimd {

class StreamPipeline final : public RegisteredStream {
 public:
  // The RPC reactor the pipeline drives.
  class Host {
   public:
    virtual ~Host() = default;
    // Start taking the next message or frame from the source. The host answers exactly once with
    // FetchedConfig, FetchedFrame, FetchedEnd or FetchFailed.
    virtual void HostFetch() = 0;
    virtual void HostWrite(const v1::ScoreClipResponse* response) = 0;
    virtual void HostFinish(grpc::Status status) = 0;
    // Every operation is over: delete the reactor (and with it this pipeline).
    virtual void HostDestroy() = 0;
    // Makes a pending read or write end at once (a client that takes no results would otherwise
    // hold a write, and with it the stream, forever).
    virtual void HostCancel() = 0;
    // True when HostFetch waits for the client's next message (ScoreClip), false when the server
    // reads the input itself (ScoreFiles).
    virtual bool HostFetchWaitsOnClient() const = 0;
  };

  // `deadline` is the client's deadline for the call (absl::InfiniteFuture() when it set none).
  StreamPipeline(ServiceContext* ctx, Host* host, absl::string_view method, std::string peer,
                 absl::Time deadline);
  ~StreamPipeline() override;
  StreamPipeline(const StreamPipeline&) = delete;
  StreamPipeline& operator=(const StreamPipeline&) = delete;

  // Starts the first fetch (the config message, or opening the files).
  void Start();

  // Answers to HostFetch.
  void FetchedConfig(ClipSettings settings);
  void FetchedFrame(uint64_t index, ReceivedPlanes planes);
  void FetchedEnd();
  void FetchFailed(const absl::Status& status);
  // The source failed after the frames fetched so far (a file corrupt midway): their results are
  // written first, then the stream fails with `status`, without a summary.
  void FetchFailedAfterPending(const absl::Status& status);
  // The read failed because the call was cancelled (not a half-close).
  void FetchCancelled();
  // For file sources: frames of the longer file that found no partner, reported in the summary.
  // Call before FetchedEnd.
  void SetUnmatchedFrames(uint64_t reference, uint64_t distorted);

  // Reactions the host forwards.
  void WriteDone(bool ok);
  void Cancelled();
  void Done();

  // For hosts that run work of their own on the pool: the pipeline outlives every held task.
  void HoldTask();
  void ReleaseTask();

  // RegisteredStream: the idle watchdog and the end of a shutdown's grace period.
  bool TryHold() override;
  void Release() override { ReleaseTask(); }
  absl::Duration WaitingOnClient(absl::Time now) const override;
  void Abort(const absl::Status& status) override;
  void AbortIdle(absl::Duration waited, absl::Duration timeout) override;

  bool configured() const;
  // Frames taken so far; also the index the next frame must have.
  uint64_t frames_fetched() const;
  // True once the stream failed or was cancelled: host work should stop early.
  bool stopping() const { return stopping_.load(std::memory_order_acquire); }
  ServiceContext* ctx() const { return ctx_; }
  // Valid once configured() is true (it never changes after that).
  const Geometry& geometry() const { return settings_.geometry; }
  const FeatureSet& features() const { return settings_.features; }

 private:
  struct Ready {
    ScoreResult result;
  };
  struct Actions {
    bool fetch = false;
    const v1::ScoreClipResponse* write = nullptr;
    std::optional<grpc::Status> finish;
    bool destroy = false;
  };

  Actions Plan() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Runs planned actions; must be the last use of `this` by the calling thread.
  void Execute(Actions actions);
  void FailLocked(const absl::Status& status) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  bool DeadlinePassed() const;
  // Why a cancelled call ended, as far as the server can tell: its deadline, or a cancel.
  absl::Status CancellationLocked() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void FinishLocked(const grpc::Status& status) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  std::unique_ptr<v1::ScoreClipResponse> SummaryLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Hands scored frames, in input order, to temporal_ (vmaf's motion waits for the next frame).
  void AdvanceTemporalLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void Score(uint64_t index, const ReceivedPlanes& planes, const ReceivedPlanes* previous,
             absl::Time submitted);
  void Scored(uint64_t index, absl::StatusOr<ScoreResult> result);

  ServiceContext* const ctx_;
  Host* const host_;
  const std::string method_;
  const std::string stream_id_;
  const std::string peer_;
  const absl::Time deadline_;
  std::atomic<bool> stopping_{false};

  mutable absl::Mutex mu_;
  // Written once by FetchedConfig, before any frame; read by workers after that.
  ClipSettings settings_;
  std::unique_ptr<StreamLog> log_;
  bool configured_ ABSL_GUARDED_BY(mu_) = false;
  absl::Time started_ ABSL_GUARDED_BY(mu_);

  bool fetching_ ABSL_GUARDED_BY(mu_) = false;
  absl::Time fetch_started_ ABSL_GUARDED_BY(mu_);
  absl::Time write_started_ ABSL_GUARDED_BY(mu_);
  bool host_cancel_requested_ ABSL_GUARDED_BY(mu_) = false;
  bool input_done_ ABSL_GUARDED_BY(mu_) = false;
  uint64_t frames_fetched_ ABSL_GUARDED_BY(mu_) = 0;
  int in_flight_ ABSL_GUARDED_BY(mu_) = 0;
  std::map<uint64_t, Ready> ready_ ABSL_GUARDED_BY(mu_);
  // Created with the config. Frames below temporal_->frames_added() were handed to it.
  std::unique_ptr<TemporalFinish> temporal_ ABSL_GUARDED_BY(mu_);
  // The last frame fetched, kept while its successor is scored where the features compare
  // consecutive reference pictures (FeaturesReadPreviousReference).
  std::shared_ptr<const ReceivedPlanes> previous_planes_ ABSL_GUARDED_BY(mu_);
  uint64_t next_write_ ABSL_GUARDED_BY(mu_) = 0;
  bool write_in_progress_ ABSL_GUARDED_BY(mu_) = false;
  std::unique_ptr<v1::ScoreClipResponse> current_write_ ABSL_GUARDED_BY(mu_);
  bool summary_sent_ ABSL_GUARDED_BY(mu_) = false;
  ClipAccumulator accumulator_ ABSL_GUARDED_BY(mu_);
  uint64_t unmatched_reference_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t unmatched_distorted_ ABSL_GUARDED_BY(mu_) = 0;

  std::optional<absl::Status> failure_ ABSL_GUARDED_BY(mu_);
  std::optional<absl::Status> deferred_failure_ ABSL_GUARDED_BY(mu_);
  bool cancelled_ ABSL_GUARDED_BY(mu_) = false;
  bool finish_called_ ABSL_GUARDED_BY(mu_) = false;
  // gRPC operations planned but not yet started; Finish waits for them so that no Start* call can
  // follow it.
  int ops_starting_ ABSL_GUARDED_BY(mu_) = 0;
  int tasks_ ABSL_GUARDED_BY(mu_) = 0;
  bool done_ ABSL_GUARDED_BY(mu_) = false;
  bool destroyed_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace ssimd

#endif  // SSIMD_SERVER_STREAM_PIPELINE_H_
