// Device and pinned host allocations that grow on demand and are freed with their owner.
// GPU builds only. A buffer is only resized while its stream slot is leased and idle.
#ifndef SSIMD_ENGINE_GPU_DEVICE_BUFFERS_H_
#define SSIMD_ENGINE_GPU_DEVICE_BUFFERS_H_

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "absl/status/status.h"
#include "kernels/hip_portability.h"

namespace ssimd {

// Where an allocation lives.
enum class MemoryKind { kDevice, kPinnedHost };

class GrowableBuffer {
 public:
  // `device_bytes`, when not null, tracks the device memory held (shared by a device's slots).
  GrowableBuffer(MemoryKind kind, std::atomic<int64_t>* device_bytes)
      : kind_(kind), device_bytes_(device_bytes) {}
  GrowableBuffer(const GrowableBuffer&) = delete;
  GrowableBuffer& operator=(const GrowableBuffer&) = delete;
  ~GrowableBuffer() { Free(); }

  // Makes the buffer hold at least `bytes`; the contents are not kept when it grows.
  absl::Status Reserve(size_t bytes, const char* what);

  template <typename T>
  T* as() const {
    return static_cast<T*>(data_);
  }
  size_t capacity() const { return capacity_; }

 private:
  void Free();

  MemoryKind kind_;
  std::atomic<int64_t>* device_bytes_;
  void* data_ = nullptr;
  size_t capacity_ = 0;
};

}  // namespace ssimd

#endif  // SSIMD_ENGINE_GPU_DEVICE_BUFFERS_H_
