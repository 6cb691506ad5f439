// Keeps the memory of freed frame buffers in the process. A 1080p pair is 4 MB and every frame
// allocates such buffers (gRPC's receive and send slices, request strings) and frees them a few
// milliseconds later. glibc's defaults return that memory to the kernel between frames (blocks
// above the mmap threshold are unmapped, and arenas are trimmed), so the next frame takes a page
// fault for every 4 KiB it touches, a large share of a loopback ScoreClip stream's time
// (docs/adr/0065). Called once at the start of the server, the CLI and the tools that move frames.
#ifndef SSIMD_PROCESS_FRAME_MEMORY_H_
#define SSIMD_PROCESS_FRAME_MEMORY_H_

#include <cstddef>
#include <thread>

#include "absl/synchronization/notification.h"
#include "absl/time/time.h"

namespace ssimd {

// Blocks below this come from malloc's arenas rather than a mapping of their own: glibc's largest
// threshold (32 MiB on 64-bit), which holds a 16-bit 4K plane (16.6 MB); larger planes are mapped
// and unmapped as before.
inline constexpr size_t kFrameMmapThresholdBytes = size_t{32} << 20;
// Free memory at the top of an arena that it keeps rather than returns to the kernel: enough for
// the buffers of several 4K pairs in flight. Only both thresholds together remove the faults, and
// their exact size does not matter (bench/results/2026-12-03-dev-machine).
inline constexpr size_t kFrameTrimThresholdBytes = size_t{1} << 30;
// One arena, glibc's main one, for every thread (glibc's default is 8 per core). malloc_trim
// gives back the free top only of the main arena; the top of any other arena shrinks only when
// it exceeds the trim threshold, so with kFrameTrimThresholdBytes each extra arena kept its
// high-water mark for good (bench/results/2026-12-03-cpu-fault-load: four arenas crept while the
// bytes in use stayed flat).
inline constexpr int kFrameArenas = 1;

// Sets both thresholds and the arena count (glibc's mallopt; a no-op elsewhere). False if the C
// library refused one.
bool KeepFrameMemoryInProcess();

// What the process keeps this way only grows: the heap fragments, and a block that fits no free
// chunk extends it (resident memory still climbs after minutes of mixed load; docs/adr/0065). A
// long-running process therefore hands its free memory back now and then (malloc_trim, which with
// one arena reaches all of it): one round of page faults per interval instead of one per frame.
// Runs until destroyed.
class FrameMemoryTrimmer {
 public:
  explicit FrameMemoryTrimmer(absl::Duration interval);
  ~FrameMemoryTrimmer();
  FrameMemoryTrimmer(const FrameMemoryTrimmer&) = delete;
  FrameMemoryTrimmer& operator=(const FrameMemoryTrimmer&) = delete;

 private:
  absl::Notification stop_;
  std::thread thread_;
};

}  // namespace ssimd

#endif  // SSIMD_PROCESS_FRAME_MEMORY_H_
