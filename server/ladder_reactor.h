// ScoreLadder: one source and up to 32 renditions read from the files root. The source is decoded
// once per frame and shared by every rendition; the renditions are decoded, upscaled and scored in
// parallel on the worker pool, one source frame (a "round") at a time, so memory stays at one
// source frame plus one picture per rendition whatever the length. A driver thread per call runs
// the rounds and writes the results, waiting for each write, so a slow client holds the ladder
// back rather than filling memory.
#ifndef SSIMD_SERVER_LADDER_REACTOR_H_
#define SSIMD_SERVER_LADDER_REACTOR_H_

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "engine/media/picture_scaler.h"
#include "engine/media/luma_buffer_pool.h"
#include "engine/media/video_input.h"
#include "engine/scorer.h"
#include "grpcpp/grpcpp.h"
#include "proto/ssimd/v1/ssimd.pb.h"
#include "proto/clip_accumulator.h"
#include "server/request_parsing.h"
#include "server/service_context.h"

namespace ssimd {

inline constexpr int kMaxLadderRenditions = 32;

class LadderReactor final : public grpc::ServerWriteReactor<grpc::ByteBuffer> {
 public:
  // Copies the request; the work starts on a thread of its own. Deletes itself when done.
  LadderReactor(ServiceContext* ctx, grpc::CallbackServerContext* call,
                const v1::ScoreLadderRequest& request);

  void OnWriteDone(bool ok) override;
  void OnCancel() override;
  void OnDone() override;

 private:
  // One rendition: its input, settings, pooled scores, and this round's work.
  struct Rung {
    std::string name;
    std::unique_ptr<VideoInput> input;
    ClipSettings settings;
    ClipAccumulator accumulator;
    bool ended = false;
    uint64_t pairs = 0;
    uint64_t unmatched_source = 0;
    uint64_t unmatched_rendition = 0;
    std::string luma;
    absl::Status round_status;
    bool round_scored = false;
    ScoreResult round_result;
    double decode_seconds = 0;  // this rendition's decoding and upscaling, for its log line
    double scale_seconds = 0;
  };

  void Run();
  absl::Status Open();
  absl::Status OpenRung(int index, const ClipSettings& ladder, const ScalerChoice& scaler);
  // Past the start offsets: every input from now on decodes ahead, into recycled buffers.
  void ReadAhead();
  absl::Status ScoreRounds();
  // One rendition's part of a round, on the worker pool.
  void ScoreRung(Rung& rung, const std::string& source, uint64_t index);
  absl::Status CountUnmatched();
  absl::Status WriteSummaries();
  // Starts a write and waits for it; false when the stream is broken or cancelled.
  bool Write(const v1::ScoreLadderResponse& message);
  void Conclude(const absl::Status& status);
  // One log line per scored rendition, with its name, file facts, scores and decode time.
  void LogRendition(const Rung& rung, const v1::RenditionSummary& summary) const;

  ServiceContext* const ctx_;
  const v1::ScoreLadderRequest request_;
  const std::string peer_;
  const absl::Time started_;
  std::shared_ptr<LumaBufferPool> buffers_;
  std::unique_ptr<VideoInput> source_;
  FeatureSet source_features_;  // the request's, for the source's decode stage
  std::vector<std::unique_ptr<Rung>> rungs_;
  uint64_t source_frames_ = 0;  // paired with at least one rendition
  bool source_ended_ = false;
  std::atomic<bool> cancelled_{false};

  absl::Mutex mu_;
  bool write_done_ ABSL_GUARDED_BY(mu_) = false;
  bool write_ok_ ABSL_GUARDED_BY(mu_) = false;
  grpc::ByteBuffer pending_;  // the message being written, serialized

  std::thread driver_;
};

}  // namespace ssimd

#endif  // SSIMD_SERVER_LADDER_REACTOR_H_
