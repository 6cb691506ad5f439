// Keeps the buffers of frames that have been scored for the next frames to be read into. A fresh
// std::string of a frame's size is zero-filled before the read overwrites it, one extra pass over
// every plane (2 MB per 1080p frame); a recycled buffer already has the size and is only
// overwritten.
#ifndef SSIMD_ENGINE_MEDIA_LUMA_BUFFER_POOL_H_
#define SSIMD_ENGINE_MEDIA_LUMA_BUFFER_POOL_H_

#include <cstddef>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

namespace ssimd {

// Thread-safe: buffers come back from whichever thread finished scoring their frame.
class LumaBufferPool {
 public:
  // Keeps at most `max_buffers` buffers; more are freed as they come back.
  explicit LumaBufferPool(size_t max_buffers) : max_buffers_(max_buffers) {}

  // A buffer that has been used before, or an empty one when none is kept.
  std::string Take();
  // Keeps `buffer` (its size and contents as they are) for a later Take.
  void Give(std::string buffer);

  size_t kept() const;

 private:
  const size_t max_buffers_;
  mutable absl::Mutex mutex_;
  std::vector<std::string> free_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace ssimd

#endif  // SSIMD_ENGINE_MEDIA_LUMA_BUFFER_POOL_H_
