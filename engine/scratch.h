// Buffers that a calling thread keeps from frame to frame. Allocating a frame's buffers afresh
// cost more than the arithmetic on small pictures (zero-filling, and the kernel's page faults
// when the allocator returns large blocks to the system between frames).
#ifndef SSIMD_ENGINE_SCRATCH_H_
#define SSIMD_ENGINE_SCRATCH_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

namespace ssimd {

// Grows `v` to hold at least `n` elements and never shrinks it, so reuse costs nothing.
template <typename T>
T* GrowTo(std::vector<T>& v, size_t n) {
  if (v.size() < n) v.resize(n);
  return v.data();
}

// Buffers above this many bytes are released after the frame instead of kept for the next one.
inline constexpr size_t kKeptScratchBytes = size_t{64} << 20;

template <typename T>
size_t BytesOf(const std::vector<T>& v) {
  return v.capacity() * sizeof(T);
}

// Which plane rows a band's buffers hold: rows [first_row, end_row), `width` elements each, from
// the front. Consecutive bands overlap by the filter's reach; Slide keeps the shared rows rather
// than filtering them again.
struct BandRows {
  int width = 0;
  int64_t first_row = 0;  // plane row held at index 0
  int64_t end_row = 0;    // one past the last plane row held

  // Moves rows [from, end_row) of every buffer to its front (trivially copyable elements only).
  template <typename... Elements>
  void Slide(int64_t from, std::vector<Elements>&... buffers) {
    if (from >= end_row) {
      first_row = end_row = from;
      return;
    }
    const size_t offset = static_cast<size_t>(from - first_row) * width;
    const size_t count = static_cast<size_t>(end_row - from) * width;
    (std::memmove(buffers.data(), buffers.data() + offset, count * sizeof(Elements)), ...);
    first_row = from;
  }
};

}  // namespace ssimd

#endif  // SSIMD_ENGINE_SCRATCH_H_
