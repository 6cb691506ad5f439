// Buffers that a calling thread keeps from frame to frame. Allocating a frame's buffers afresh
// cost more than the arithmetic on small pictures (zero-filling, and the kernel's page faults
// when the allocator returns large blocks to the system between frames).
#ifndef SSIMD_ENGINE_SCRATCH_H_
#define SSIMD_ENGINE_SCRATCH_H_

#include <cstddef>
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

}  // namespace ssimd

#endif  // SSIMD_ENGINE_SCRATCH_H_
