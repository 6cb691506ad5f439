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
                               std::shared_ptr<LumaBufferPool> buffers, int positional_readers)
    : inner_(std::move(inner)),
      depth_(std::max<size_t>(1, depth)),
      buffers_(std::move(buffers)),
      readers_wanted_(inner_->positional() ? std::max(1, positional_readers) : 1),
      next_to_return_(inner_->frames_read()),
      next_to_claim_(next_to_return_) {}

ReadAheadInput::~ReadAheadInput() {
  {
    absl::MutexLock lock(&mutex_);
    stop_ = true;
  }
  for (std::thread& reader : readers_) reader.join();
}

void ReadAheadInput::Start() {
  started_ = true;
  try {
    for (int i = 0; i < readers_wanted_; ++i) readers_.emplace_back([this] { ReadLoop(); });
  } catch (const std::system_error&) {
    // Fewer threads than asked for still read every frame; none means reading inline.
  }
}

void ReadAheadInput::ReadOne(uint64_t index, ReadFrame* frame) {
  // An input read in order has one reader, which claims its indices in order.
  if (inner_->positional()) {
    frame->got = inner_->ReadPlanesAt(
        index, frame->picture.ResetOnHostPlanes(inner_->geometry(), inner_->keeps_chroma()));
  } else {
    frame->got = inner_->Read(&frame->picture);
  }
  frame->times = inner_->positional() ? ReadTimes() : inner_->last_read_times();
}

void ReadAheadInput::ReadLoop() {
  for (;;) {
    uint64_t index;
    {
      absl::MutexLock lock(&mutex_);
      mutex_.Await(absl::Condition(this, &ReadAheadInput::MayClaim));
      if (stop_) return;
      index = next_to_claim_++;
    }
    ReadFrame frame;
    if (buffers_ != nullptr) frame.picture.AdoptBuffer(buffers_->Take());
    ReadOne(index, &frame);
    const bool last = !frame.got.ok() || !*frame.got;
    absl::MutexLock lock(&mutex_);
    if (last) last_index_ = std::min(last_index_, index);
    ready_.emplace(index, std::move(frame));
  }
}

uint64_t ReadAheadInput::frames_read() const {
  absl::MutexLock lock(&mutex_);
  return next_to_return_;
}

absl::StatusOr<bool> ReadAheadInput::Read(Picture* out) {
  if (ended_.has_value()) return *ended_;
  if (!started_) Start();
  ReadFrame frame;
  if (readers_.empty()) {
    frame.picture.AdoptBuffer(out->TakeBuffer());
    ReadOne(frames_read(), &frame);
  } else {
    absl::MutexLock lock(&mutex_);
    mutex_.Await(absl::Condition(this, &ReadAheadInput::NextReady));
    auto it = ready_.find(next_to_return_);
    frame = std::move(it->second);
    ready_.erase(it);
  }
  if (!frame.got.ok() || !*frame.got) {
    ended_ = frame.got;
    return frame.got;
  }
  if (buffers_ != nullptr && !readers_.empty()) buffers_->Give(out->TakeBuffer());
  *out = std::move(frame.picture);
  last_times_ = frame.times;
  absl::MutexLock lock(&mutex_);
  ++next_to_return_;
  return true;
}

}  // namespace ssimd
