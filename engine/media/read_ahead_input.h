// Reads an input's next frames on threads of their own while the frames before them are scored,
// so that reading (a copy out of the page cache, or decoding and scaling) overlaps with scoring
// and the two inputs of a pair are read at the same time. At most `depth` frames wait; memory
// stays flat however long the file.
#ifndef SSIMD_ENGINE_MEDIA_READ_AHEAD_INPUT_H_
#define SSIMD_ENGINE_MEDIA_READ_AHEAD_INPUT_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

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
  // Wraps `inner`, which must be past its start offset: reading starts with the first Read.
  // One thread reads an input that must be read in order; `positional_readers` threads share
  // the frames of a positional() one (a copy out of the page cache runs at one core's memory
  // bandwidth, which one 4K stream exceeds). Frames are read into buffers from `buffers` (may be
  // null); Read gives the host buffer of the caller's previous picture back to it.
  ReadAheadInput(std::unique_ptr<VideoInput> inner, size_t depth,
                 std::shared_ptr<LumaBufferPool> buffers, int positional_readers = 1);
  // Stops the reading threads after the frames they are reading.
  ~ReadAheadInput() override;
  ReadAheadInput(const ReadAheadInput&) = delete;
  ReadAheadInput& operator=(const ReadAheadInput&) = delete;

  const Geometry& geometry() const override { return inner_->geometry(); }
  FrameRate frame_rate() const override { return inner_->frame_rate(); }
  const std::string& name() const override { return inner_->name(); }
  std::optional<uint64_t> EstimatedFrames() const override { return inner_->EstimatedFrames(); }
  MediaInfo media_info() const override { return inner_->media_info(); }
  std::string decode_backend() const override { return inner_->decode_backend(); }
  DecodeFallback decode_fallback() const override { return inner_->decode_fallback(); }
  std::string decode_fallback_detail() const override {
    return inner_->decode_fallback_detail();
  }
  // The frames returned or skipped so far, and the read times of the last of them: what the
  // inner input said when it read that frame.
  uint64_t frames_read() const override;
  ReadTimes last_read_times() const override { return last_times_; }
  // Only before the first Read.
  void KeepChroma() override { inner_->KeepChroma(); }
  bool keeps_chroma() const override { return inner_->keeps_chroma(); }

  // The inner input's next picture, in order, as the inner input handed it over (in device
  // memory, with an upscale pending); its end or error once every frame before it has been
  // returned, and again on every later call.
  absl::StatusOr<bool> Read(Picture* out) override;

 private:
  struct ReadFrame {
    absl::StatusOr<bool> got = false;
    Picture picture;
    ReadTimes times;
  };

  void Start();
  void ReadLoop();
  // The inner input's frame `index`, read into `frame`.
  void ReadOne(uint64_t index, ReadFrame* frame);
  bool MayClaim() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) {
    return stop_ || (next_to_claim_ <= last_index_ && next_to_claim_ < next_to_return_ + depth_);
  }
  bool NextReady() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) {
    return ready_.count(next_to_return_) > 0;
  }

  const std::unique_ptr<VideoInput> inner_;
  const size_t depth_;
  const std::shared_ptr<LumaBufferPool> buffers_;
  const int readers_wanted_;
  ReadTimes last_times_;
  std::optional<absl::StatusOr<bool>> ended_;  // the end or error already returned
  bool started_ = false;
  std::vector<std::thread> readers_;  // empty when no thread could be started: then reads inline

  mutable absl::Mutex mutex_;
  uint64_t next_to_return_ ABSL_GUARDED_BY(mutex_);  // by the inner input's count
  uint64_t next_to_claim_ ABSL_GUARDED_BY(mutex_);
  // The first index whose read ended the input (its end or an error): none is read past it.
  uint64_t last_index_ ABSL_GUARDED_BY(mutex_) = UINT64_MAX;
  std::map<uint64_t, ReadFrame> ready_ ABSL_GUARDED_BY(mutex_);
  bool stop_ ABSL_GUARDED_BY(mutex_) = false;
};

}  // namespace ssimd

#endif  // SSIMD_ENGINE_MEDIA_READ_AHEAD_INPUT_H_
