#include "process/frame_memory.h"

#include <malloc.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <thread>
#include <vector>

#include "absl/time/clock.h"
#include "gtest/gtest.h"

namespace ssimd {
namespace {

// A frame-sized block freed and allocated again comes back without being unmapped in between:
// glibc then hands out the same address (an mmapped block would be unmapped on free).
TEST(FrameMemoryTest, AFreedFrameBufferIsReusedNotUnmapped) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "the sanitizer's allocator replaces glibc's";
#endif
  ASSERT_TRUE(KeepFrameMemoryInProcess());
  constexpr size_t kPair = 2 * 1920 * 1080;
  for (int i = 0; i < 3; ++i) {
    void* warm = std::malloc(kPair);
    std::memset(warm, 1, kPair);
    std::free(warm);
  }
  const struct mallinfo2 before = mallinfo2();
  void* block = std::malloc(kPair);
  ASSERT_NE(block, nullptr);
  const struct mallinfo2 during = mallinfo2();
  EXPECT_EQ(during.hblkhd, before.hblkhd) << "the block was given a mapping of its own";
  std::free(block);
  const struct mallinfo2 after = mallinfo2();
  EXPECT_GE(after.fordblks, kPair) << "the freed block went back to the kernel";
}

// Resident memory of this process, from /proc/self/statm.
size_t ResidentBytes() {
  std::ifstream statm("/proc/self/statm");
  size_t pages = 0, resident = 0;
  statm >> pages >> resident;
  return resident * static_cast<size_t>(sysconf(_SC_PAGESIZE));
}

TEST(FrameMemoryTest, TheTrimmerHandsKeptMemoryBack) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "the sanitizer's allocator replaces glibc's";
#endif
  ASSERT_TRUE(KeepFrameMemoryInProcess());
  constexpr size_t kBlock = size_t{16} << 20;  // below the mmap threshold: from an arena
  std::vector<void*> blocks;
  for (int i = 0; i < 4; ++i) {
    blocks.push_back(std::malloc(kBlock));
    std::memset(blocks.back(), 1, kBlock);
  }
  for (void* b : blocks) std::free(b);
  const size_t kept = ResidentBytes();
  {
    FrameMemoryTrimmer trimmer(absl::Milliseconds(10));
    absl::SleepFor(absl::Milliseconds(200));
  }  // and it stops when destroyed
  EXPECT_LT(ResidentBytes() + 2 * kBlock, kept) << "kept " << kept << " bytes";
}

// Frame buffers are freed on gRPC's and the engine's threads, not the trimmer's: their memory
// must come back too (with an arena per thread, malloc_trim left each arena's free top in place).
TEST(FrameMemoryTest, TheTrimmerHandsBackMemoryFreedOnOtherThreads) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "the sanitizer's allocator replaces glibc's";
#endif
  ASSERT_TRUE(KeepFrameMemoryInProcess());
  constexpr size_t kBlock = size_t{8} << 20;
  std::vector<std::thread> workers;
  for (int t = 0; t < 4; ++t) {
    workers.emplace_back([] {
      std::vector<void*> blocks;
      for (int i = 0; i < 4; ++i) {
        blocks.push_back(std::malloc(kBlock));
        std::memset(blocks.back(), 1, kBlock);
      }
      for (void* b : blocks) std::free(b);
    });
  }
  for (std::thread& w : workers) w.join();
  const size_t kept = ResidentBytes();
  {
    FrameMemoryTrimmer trimmer(absl::Milliseconds(10));
    absl::SleepFor(absl::Milliseconds(200));
  }
  EXPECT_LT(ResidentBytes() + 8 * kBlock, kept) << "kept " << kept << " bytes";
}

}  // namespace
}  // namespace ssimd
