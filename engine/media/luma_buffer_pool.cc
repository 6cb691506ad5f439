#include "engine/media/luma_buffer_pool.h"

#include <utility>

namespace ssimd {

std::string LumaBufferPool::Take() {
  absl::MutexLock lock(&mutex_);
  if (free_.empty()) return std::string();
  std::string buffer = std::move(free_.back());
  free_.pop_back();
  return buffer;
}

void LumaBufferPool::Give(std::string buffer) {
  if (buffer.empty()) return;  // nothing worth keeping (moved from, or never filled)
  absl::MutexLock lock(&mutex_);
  if (free_.size() < max_buffers_) free_.push_back(std::move(buffer));
}

size_t LumaBufferPool::kept() const {
  absl::MutexLock lock(&mutex_);
  return free_.size();
}

}  // namespace ssimd
