#include "process/frame_memory.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace ssimd {

bool KeepFrameMemoryInProcess() {
#if defined(__GLIBC__)
  // Setting either threshold also turns off glibc's own adjustment of both.
  return mallopt(M_MMAP_THRESHOLD, static_cast<int>(kFrameMmapThresholdBytes)) == 1 &&
         mallopt(M_TRIM_THRESHOLD, static_cast<int>(kFrameTrimThresholdBytes)) == 1 &&
         mallopt(M_ARENA_MAX, kFrameArenas) == 1;
#else
  return true;
#endif
}

FrameMemoryTrimmer::FrameMemoryTrimmer(absl::Duration interval)
    : thread_([this, interval] {
        while (!stop_.WaitForNotificationWithTimeout(interval)) {
#if defined(__GLIBC__)
          malloc_trim(0);
#endif
        }
      }) {}

FrameMemoryTrimmer::~FrameMemoryTrimmer() {
  stop_.Notify();
  thread_.join();
}

}  // namespace ssimd
