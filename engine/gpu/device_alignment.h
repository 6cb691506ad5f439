// Where the pieces of one device buffer start: every offset the backend lays out is a multiple of
// 256 bytes, the alignment hipMalloc gives a buffer's start, so each piece is as aligned as a
// buffer of its own.
#ifndef SSIMD_ENGINE_GPU_DEVICE_ALIGNMENT_H_
#define SSIMD_ENGINE_GPU_DEVICE_ALIGNMENT_H_

#include <cstddef>

namespace ssimd {

inline constexpr size_t kDeviceAlignment = 256;

// `bytes` rounded up to the next multiple of kDeviceAlignment.
inline constexpr size_t DeviceAligned(size_t bytes) {
  return (bytes + kDeviceAlignment - 1) / kDeviceAlignment * kDeviceAlignment;
}

}  // namespace ssimd

#endif  // SSIMD_ENGINE_GPU_DEVICE_ALIGNMENT_H_
