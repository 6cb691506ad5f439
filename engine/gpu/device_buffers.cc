#include "engine/gpu/device_buffers.h"

#include "absl/strings/str_format.h"
#include "engine/gpu/hip_status.h"

namespace ssimd {
namespace {

// Rounding sizes up keeps a stream of slightly different pictures from reallocating each time.
constexpr size_t kGranule = size_t{1} << 20;

}  // namespace

absl::Status GrowableBuffer::Reserve(size_t bytes, const char* what) {
  if (bytes <= capacity_) return absl::OkStatus();
  Free();
  const size_t rounded = (bytes + kGranule - 1) / kGranule * kGranule;
  void* data = nullptr;
  const hipError_t error = kind_ == MemoryKind::kDevice
                               ? hipMalloc(&data, rounded)
                               : hipHostMalloc(&data, rounded, hipHostMallocDefault);
  if (error != hipSuccess) {
    return HipStatus(
        error, absl::StrFormat("allocating %d bytes of %s memory for %s", rounded,
                               kind_ == MemoryKind::kDevice ? "device" : "pinned host", what));
  }
  data_ = data;
  capacity_ = rounded;
  if (kind_ == MemoryKind::kDevice && device_bytes_ != nullptr) {
    device_bytes_->fetch_add(static_cast<int64_t>(rounded));
  }
  return absl::OkStatus();
}

void GrowableBuffer::Free() {
  if (data_ == nullptr) return;
  // Errors are ignored: on a lost device the memory goes with the context anyway.
  if (kind_ == MemoryKind::kDevice) {
    (void)hipFree(data_);
    if (device_bytes_ != nullptr) device_bytes_->fetch_sub(static_cast<int64_t>(capacity_));
  } else {
    (void)hipHostFree(data_);
  }
  data_ = nullptr;
  capacity_ = 0;
}

}  // namespace ssimd
