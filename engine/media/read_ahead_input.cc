#include "engine/media/read_ahead_input.h"

#include <algorithm>
#include <system_error>
#include <utility>

namespace ssimd {

size_t ReadAheadDepth(const Geometry& geometry) {
  // 32 MiB per input: 16 frames of 1080p 8-bit, 4 of 4K 8-bit, 2 of 4K 16-bit. Depth beyond a
  // few frames only absorbs jitter; the overlap itself needs two.
  constexpr size_t kReadAheadBytes = size_t{32} << 20;
  const size_t frame = std::max<size_t>(1, LumaBytes(geometry));
  return std::clamp<size_t>(kReadAheadBytes / frame, 2, 16);
}

ReadAheadInput::ReadAheadInput(std::unique_ptr<VideoInput> inner, size_t depth,
                               std::shared_ptr<LumaBufferPool> buffers)
    : inner_(std::move(inner)),
      depth_(std::max<size_t>(1, depth)),
      buffers_(std::move(buffers)),
      frames_returned_(inner_->frames_read()) {}

ReadAheadInput::~ReadAheadInput() {
  {
    absl::MutexLock lock(&mutex_);
    stop_ = true;
  }
  if (reader_.joinable()) reader_.join();
}

void ReadAheadInput::ReadLoop() {
  for (;;) {
    {
      absl::MutexLock lock(&mutex_);
      mutex_.Await(absl::Condition(this, &ReadAheadInput::StoppedOrRoom));
      if (stop_) return;
    }
    ReadFrame frame;
    if (buffers_ != nullptr) frame.luma = buffers_->Take();
    frame.got = inner_->ReadLuma(&frame.luma);
    frame.times = inner_->last_read_times();
    const bool last = !frame.got.ok() || !*frame.got;
    absl::MutexLock lock(&mutex_);
    ready_.push_back(std::move(frame));
    if (last) return;
  }
}

absl::StatusOr<bool> ReadAheadInput::ReadLuma(std::string* luma) {
  if (ended_.has_value()) return *ended_;
  if (!started_) {
    started_ = true;
    try {
      reader_ = std::thread([this] { ReadLoop(); });
    } catch (const std::system_error&) {
      // No thread to spare: read on the caller's thread, as without read-ahead.
    }
  }
  ReadFrame frame;
  if (reader_.joinable()) {
    absl::MutexLock lock(&mutex_);
    mutex_.Await(absl::Condition(this, &ReadAheadInput::FrameReady));
    frame = std::move(ready_.front());
    ready_.pop_front();
  } else {
    frame.luma = std::move(*luma);
    frame.got = inner_->ReadLuma(&frame.luma);
    frame.times = inner_->last_read_times();
  }
  if (!frame.got.ok() || !*frame.got) {
    ended_ = frame.got;
    return frame.got;
  }
  if (buffers_ != nullptr && reader_.joinable()) buffers_->Give(std::move(*luma));
  *luma = std::move(frame.luma);
  last_times_ = frame.times;
  ++frames_returned_;
  return true;
}

}  // namespace ssimd
