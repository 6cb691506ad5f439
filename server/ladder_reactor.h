// ScoreLadder: one source and up to 32 renditions read from the files root. The source is decoded
// once per frame and shared by every rendition; every input decodes (and upscales) ahead on a
// thread of its own, and each source frame (a "round") is scored against every rendition in
// parallel on the worker pool, a few rounds at once, so memory stays at a few source frames plus
// a few pictures per rendition whatever the length. A driver thread per call runs the rounds and
// writes the results in order, waiting for each write, so a slow client holds the ladder back
// rather than filling memory (docs/adr/0073). The call is registered with the server's streams, so
// that the idle watchdog ends a ladder whose client stops taking results, and a shutdown's grace
// period ends one still running.
#ifndef SSIMD_SERVER_LADDER_REACTOR_H_
#define SSIMD_SERVER_LADDER_REACTOR_H_

#include <atomic>
#include <deque>
#include <optional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/blocking_counter.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "engine/media/picture_scaler.h"
#include "engine/media/luma_buffer_pool.h"
#include "engine/media/video_input.h"
#include "engine/scorer.h"
#include "engine/vmaf/temporal_finish.h"
#include "grpcpp/grpcpp.h"
#include "proto/ssimd/v1/ssimd.pb.h"
#include "proto/clip_accumulator.h"
#include "server/request_parsing.h"
#include "server/service_context.h"
#include "server/stream_registry.h"

namespace ssimd {

inline constexpr int kMaxLadderRenditions = 32;

class LadderReactor final : public grpc::ServerWriteReactor<grpc::ByteBuffer>,
                            public RegisteredStream {
 public:
  // Copies the request; the work starts on a thread of its own. Deletes itself when done and no
  // longer held by the stream registry.
  LadderReactor(ServiceContext* ctx, grpc::CallbackServerContext* call,
                const v1::ScoreLadderRequest& request);
  ~LadderReactor() override;

  void OnWriteDone(bool ok) override;
  void OnCancel() override;
  void OnDone() override;

  // RegisteredStream: the watchdog and the shutdown act on the call from their own threads.
  bool TryHold() override;
  void Release() override;
  // How long the result being written has waited for the client to take it; zero otherwise.
  absl::Duration WaitingOnClient(absl::Time now) const override;
  // The driver stops at its next step; a write the client never takes is ended by cancelling
  // the call (the client then sees CANCELLED; the log and the metrics keep `status`).
  void Abort(const absl::Status& status) override;
  void AbortIdle(absl::Duration waited, absl::Duration timeout) override;

 private:
  // One rendition: its input, settings and pooled scores. Only the driver thread touches it.
  struct Rung {
    std::string name;
    std::unique_ptr<VideoInput> input;
    // `input` itself where the file is encoded, for choosing where its pictures are upscaled and
    // kept; null for raw files, and once ReadAhead hands the input to its readers.
    DecodedInput* decoded = nullptr;
    ClipSettings settings;
    ClipAccumulator accumulator;
    bool ended = false;
    uint64_t pairs = 0;
    uint64_t unmatched_source = 0;
    uint64_t unmatched_rendition = 0;
    double decode_seconds = 0;  // this rendition's decoding and upscaling, for its log line
    double scale_seconds = 0;
    std::string upscale;  // RenditionSummary.upscale
    // The scorer upscales the pictures its plan fits (they come with the plan); others count as
    // upscale fallbacks ("frame").
    bool upscale_on_scorer = false;
    std::string upscale_fallback_reason;
    // Results scored but not written: they wait for later frames' (TemporalFinish; vmaf).
    std::unique_ptr<TemporalFinish> temporal;
    std::deque<ScoreResult> unwritten;
  };

  void Run();
  absl::Status Open();
  absl::Status OpenRung(int index, OpenedInput input, const ClipSettings& ladder,
                        const ScalerChoice& scaler);
  // Where the rung's upscale runs (--upscale_on_scorer, docs/adr/0080).
  void ChooseUpscale(Rung& rung);
  // Whether the ladder's features (`ladder`, or a rendition's own) read a picture's chroma.
  bool AnyRungReadsChroma(const FeatureSet& ladder) const;
  // Past the start offsets: every input from now on decodes ahead, into recycled buffers.
  void ReadAhead();
  // One rendition's part of a round: the picture read for it, then (on the worker pool) its score.
  struct RungWork {
    Rung* rung = nullptr;
    Picture picture;  // where it lies, with any upscale still to do
    absl::Status status;  // scoring failed
    ScoreResult result;
  };
  // One source frame and the renditions with a picture to pair with it.
  struct Round {
    uint64_t index = 0;
    Picture source;
    // The round before's source, where the features read it (FeaturesReadPreviousReference):
    // that round stays alive, held in previous_round_, until this one is written.
    const Picture* previous_source = nullptr;
    std::vector<RungWork> work;  // not resized once scoring started
    std::unique_ptr<absl::BlockingCounter> pending;
  };

  // Several rounds score at once (RoundsInFlight); their results are written in order.
  absl::Status ScoreRounds();
  absl::Status PlayRounds(std::deque<std::unique_ptr<Round>>& in_flight);
  size_t RoundsInFlight() const;
  // Frames each input decodes ahead (ReadAhead): one decoding while the round scores, one
  // waiting; a ladder has many inputs, so each gets less than a ScoreFiles input does. With the
  // most rounds in flight, the luma planes an input's reservation counts (docs/adr/0084).
  static constexpr size_t kReadAheadDepth = 2;
  static constexpr size_t kMaxRoundsInFlight = 4;
  // Pictures decoded by the GPU's engine stay in its memory for inputs only the GPU scores
  // (--decoded_on_device, docs/adr/0083): the source when every rendition is scored there.
  void KeepPicturesOnDevice();
  absl::StatusOr<bool> ReadSource(Round& round);
  // The next picture of every rendition still going, on the driver thread (the decoding itself
  // runs ahead on the inputs' threads); a rendition that has ended counts the frame unmatched.
  absl::Status ReadRenditions(Round& round);
  void ScoreWork(RungWork& work, const Round& round);
  // Writes the oldest rounds' results until at most `keep` rounds are in flight.
  absl::Status FinishRounds(std::deque<std::unique_ptr<Round>>& in_flight, size_t keep);
  // Writes a rendition's results whose temporal values are known; with `end`, all of them (the
  // rendition has no more frames).
  absl::Status WriteFinal(Rung& rung, bool end);
  // True when some rendition's features compare consecutive source pictures.
  bool ReadsPreviousSource() const;
  absl::Status CountUnmatched();
  absl::Status WriteSummaries();
  // Starts a write and waits for it; false when the stream is broken, cancelled or aborted.
  bool Write(const v1::ScoreLadderResponse& message);
  // True once the call is cancelled or aborted: the driver stops at its next step.
  bool Stopping() const;
  // The status the call ends with, given the driver's own: an abort's, the client's deadline or
  // cancel, or the driver's.
  absl::Status EndStatus(const absl::Status& driver) const;
  void Conclude(const absl::Status& status);
  // Deletes the reactor once gRPC is done with it and no registry holds it.
  void DestroyIfUnused() ABSL_LOCKS_EXCLUDED(mu_);
  // One log line per scored rendition, with its name, file facts, scores and decode time.
  void LogRendition(const Rung& rung, const v1::RenditionSummary& summary) const;

  ServiceContext* const ctx_;
  const v1::ScoreLadderRequest request_;
  grpc::CallbackServerContext* const call_;
  const std::string peer_;
  const absl::Time started_;
  const absl::Time deadline_;  // the client's, for telling its expiry from a cancel
  std::shared_ptr<LumaBufferPool> buffers_;
  // The last round written, kept while the next one reads its source (Round::previous_source).
  std::unique_ptr<Round> previous_round_;
  std::unique_ptr<VideoInput> source_;
  DecodedInput* source_decoded_ = nullptr;  // as Rung::decoded
  FeatureSet source_features_;  // the request's, for the source's decode stage
  std::vector<std::unique_ptr<Rung>> rungs_;
  uint64_t source_frames_ = 0;  // paired with at least one rendition
  bool source_ended_ = false;
  std::atomic<bool> cancelled_{false};

  mutable absl::Mutex mu_;
  bool write_done_ ABSL_GUARDED_BY(mu_) = false;
  bool write_ok_ ABSL_GUARDED_BY(mu_) = false;
  bool write_in_progress_ ABSL_GUARDED_BY(mu_) = false;
  absl::Time write_started_ ABSL_GUARDED_BY(mu_);
  uint64_t messages_written_ ABSL_GUARDED_BY(mu_) = 0;
  std::optional<absl::Status> abort_status_ ABSL_GUARDED_BY(mu_);
  bool cancel_requested_ ABSL_GUARDED_BY(mu_) = false;
  bool cancelling_ ABSL_GUARDED_BY(mu_) = false;  // Abort is inside TryCancel
  bool finish_called_ ABSL_GUARDED_BY(mu_) = false;
  bool done_ ABSL_GUARDED_BY(mu_) = false;  // OnDone came
  int holds_ ABSL_GUARDED_BY(mu_) = 0;      // registry holds
  bool destroyed_ ABSL_GUARDED_BY(mu_) = false;
  std::atomic<bool> aborted_{false};
  grpc::ByteBuffer pending_;  // the message being written, serialized

  std::thread driver_;
};

}  // namespace ssimd

#endif  // SSIMD_SERVER_LADDER_REACTOR_H_
