// Keeps the memory of freed frame buffers in the process. A 1080p pair is 4 MB and every frame
// allocates such buffers (gRPC's receive and send slices, request strings) and frees them a few
// milliseconds later. glibc's defaults return that memory to the kernel between frames (blocks
// above the mmap threshold are unmapped, and arenas are trimmed), so the next frame takes a page
// fault for every 4 KiB it touches: measured, over a third of the time of a loopback ScoreClip
// stream. Called once at the start of the server, the CLI and the tools that move frames.
#ifndef SSIMD_ENGINE_FRAME_MEMORY_H_
#define SSIMD_ENGINE_FRAME_MEMORY_H_

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
// the buffers of several 4K pairs in flight. Measured on a loopback 1080p 8-bit stream (2 cores):
// 241 frames/s with glibc's defaults, 299 with only the mmap threshold set, 254 with only a trim
// threshold, 531 with both; 64 MiB and 1 GiB gave the same rate.
inline constexpr size_t kFrameTrimThresholdBytes = size_t{1} << 30;
// One arena, glibc's main one, for every thread (glibc's default is 8 per core). malloc_trim
// gives back the free top only of the main arena; the top of any other arena shrinks only when
// it exceeds the trim threshold, so with kFrameTrimThresholdBytes each extra arena kept its
// high-water mark for good (measured: 10-minute fault-and-load runs with 4 arenas ended 1.5%,
// 9.6% and 11.3% above their post-warm-up level while the bytes in use stayed at 10-22 MiB).
inline constexpr int kFrameArenas = 1;

// Sets both thresholds and the arena count (glibc's mallopt; a no-op elsewhere). False if the C
// library refused one.
bool KeepFrameMemoryInProcess();

// What the process keeps this way only grows: the heap fragments, and a block that fits no free
// chunk extends it (measured: resident memory still climbing after minutes of mixed load). A
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

#endif  // SSIMD_ENGINE_FRAME_MEMORY_H_
