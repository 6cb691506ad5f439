#include "engine/frame_memory.h"

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

}  // namespace ssimd
