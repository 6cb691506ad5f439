#include "engine/frame_memory.h"

#include <malloc.h>

#include <cstdlib>
#include <cstring>

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

}  // namespace
}  // namespace ssimd
