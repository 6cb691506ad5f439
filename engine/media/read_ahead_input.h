// Reads an input's next frames on a thread of its own while the frames before them are scored, so
// that reading (a copy out of the page cache, or decoding and scaling) overlaps with scoring and
// the two inputs of a pair are read at the same time. At most `depth` frames wait; memory stays
// flat however long the file.
#ifndef SSIMD_ENGINE_MEDIA_READ_AHEAD_INPUT_H_
#define SSIMD_ENGINE_MEDIA_READ_AHEAD_INPUT_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "engine/media/luma_buffer_pool.h"
#include "engine/media/video_input.h"

namespace ssimd {

// How many frames of `geometry` to read ahead of one input: as many as fit in a fixed budget of
// bytes, at least 2 (one being read, one waiting) and at most 16.
size_t ReadAheadDepth(const Geometry& geometry);

class ReadAheadInput final : public VideoInput {
 public:
  // Wraps `inner`, which must be past its start offset: the reading thread starts with the first
  // ReadLuma. Frames are read into buffers from `buffers` (may be null); ReadLuma gives the
  // caller's previous buffer back to it.
  ReadAheadInput(std::unique_ptr<VideoInput> inner, size_t depth,
                 std::shared_ptr<LumaBufferPool> buffers);
  // Stops the reading thread after the frame it is reading.
  ~ReadAheadInput() override;
  ReadAheadInput(const ReadAheadInput&) = delete;
  ReadAheadInput& operator=(const ReadAheadInput&) = delete;

  const Geometry& geometry() const override { return inner_->geometry(); }
  FrameRate frame_rate() const override { return inner_->frame_rate(); }
  const std::string& name() const override { return inner_->name(); }
  std::optional<uint64_t> EstimatedFrames() const override { return inner_->EstimatedFrames(); }
  MediaInfo media_info() const override { return inner_->media_info(); }
  // The frames returned or skipped so far, and the read times of the last of them: what the
  // inner input said when it read that frame.
  uint64_t frames_read() const override { return frames_returned_; }
  ReadTimes last_read_times() const override { return last_times_; }

  // The inner input's next frame, in order; its end or error once, and again on every later call.
  absl::StatusOr<bool> ReadLuma(std::string* luma) override;

 private:
  struct ReadFrame {
    absl::StatusOr<bool> got = false;
    std::string luma;
    ReadTimes times;
  };

  void ReadLoop();
  bool StoppedOrRoom() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) {
    return stop_ || ready_.size() < depth_;
  }
  bool FrameReady() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) { return !ready_.empty(); }

  const std::unique_ptr<VideoInput> inner_;
  const size_t depth_;
  const std::shared_ptr<LumaBufferPool> buffers_;
  uint64_t frames_returned_;  // the inner input's skipped frames included
  ReadTimes last_times_;
  std::optional<absl::StatusOr<bool>> ended_;  // the end or error already returned
  bool started_ = false;
  std::thread reader_;  // not joinable when no thread could be started: then reads are inline

  mutable absl::Mutex mutex_;
  std::deque<ReadFrame> ready_ ABSL_GUARDED_BY(mutex_);
  bool stop_ ABSL_GUARDED_BY(mutex_) = false;
};

}  // namespace ssimd

#endif  // SSIMD_ENGINE_MEDIA_READ_AHEAD_INPUT_H_
