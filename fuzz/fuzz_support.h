// Small helpers shared by the fuzz targets: invariant checks that crash loudly (so libFuzzer and the
// replay tests both report them), an in-memory file descriptor for the file readers, and a cursor
// over the fuzzer's bytes.
#ifndef SSIMD_FUZZ_FUZZ_SUPPORT_H_
#define SSIMD_FUZZ_FUZZ_SUPPORT_H_

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

// An invariant of the code under test, not a property of the input: when it fails the target
// aborts, which libFuzzer records as a crash and the replay test as a failure.
#define FUZZ_CHECK(condition, ...)                                                   \
  do {                                                                               \
    if (!(condition)) {                                                              \
      std::fprintf(stderr, "%s:%d: invariant failed: %s\n  ", __FILE__, __LINE__,    \
                   #condition);                                                      \
      std::fprintf(stderr, __VA_ARGS__);                                             \
      std::fprintf(stderr, "\n");                                                    \
      std::abort();                                                                  \
    }                                                                                \
  } while (0)

namespace ssimd {
namespace fuzz {

// A regular file in memory holding `size` bytes, positioned at its start. The readers under test
// take ownership of the descriptor. -1 only if the kernel refuses (then the input is skipped).
inline int MemoryFile(const uint8_t* data, size_t size) {
  const int fd = memfd_create("fuzz-input", MFD_CLOEXEC);
  if (fd < 0) return -1;
  size_t done = 0;
  while (done < size) {
    const ssize_t n = ::write(fd, data + done, size - done);
    if (n <= 0) {
      ::close(fd);
      return -1;
    }
    done += static_cast<size_t>(n);
  }
  if (::lseek(fd, 0, SEEK_SET) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

// Takes leading bytes of the input as parameters; once the input runs out every byte reads as 0.
class ByteCursor {
 public:
  ByteCursor(const uint8_t* data, size_t size) : data_(data), size_(size) {}

  uint8_t Byte() { return pos_ < size_ ? data_[pos_++] : 0; }
  const uint8_t* rest() const { return data_ + pos_; }
  size_t rest_size() const { return size_ - pos_; }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

}  // namespace fuzz
}  // namespace ssimd

#endif  // SSIMD_FUZZ_FUZZ_SUPPORT_H_
