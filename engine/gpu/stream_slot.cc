#include "engine/gpu/stream_slot.h"

#include "engine/gpu/hip_status.h"

namespace ssimd {

StreamSlot::StreamSlot(std::atomic<int64_t>* device_bytes)
    : luma(MemoryKind::kDevice, device_bytes),
      decimated(MemoryKind::kDevice, device_bytes),
      filtered(MemoryKind::kDevice, device_bytes),
      float_partials(MemoryKind::kDevice, device_bytes),
      float_terms(MemoryKind::kDevice, device_bytes),
      ms_ssim_pyramid(MemoryKind::kDevice, device_bytes),
      ms_ssim_partials(MemoryKind::kDevice, device_bytes),
      moments(MemoryKind::kDevice, device_bytes),
      ssim_partials(MemoryKind::kDevice, device_bytes),
      ssim_terms(MemoryKind::kDevice, device_bytes),
      psnr_sse(MemoryKind::kDevice, device_bytes),
      vmaf_workspace(MemoryKind::kDevice, device_bytes),
      vmaf_sums(MemoryKind::kDevice, device_bytes),
      vmaf_log2_table(MemoryKind::kDevice, device_bytes),
      upscale(MemoryKind::kDevice, device_bytes),
      chroma(MemoryKind::kDevice, device_bytes),
      chroma_upscale(MemoryKind::kDevice, device_bytes) {}

absl::StatusOr<std::unique_ptr<StreamSlot>> StreamSlot::Create(int device,
                                                               std::atomic<int64_t>* device_bytes) {
  std::unique_ptr<StreamSlot> slot(new StreamSlot(device_bytes));
  slot->device = device;
  SSIMD_HIP_RETURN_IF_ERROR(hipSetDevice(device), "selecting the device");
  SSIMD_HIP_RETURN_IF_ERROR(hipStreamCreateWithFlags(&slot->stream, hipStreamNonBlocking),
                            "creating a stream");
  for (hipEvent_t& event : slot->events) {
    SSIMD_HIP_RETURN_IF_ERROR(hipEventCreate(&event), "creating a timing event");
  }
  return slot;
}

StreamSlot::~StreamSlot() {
  // Errors are ignored: a lost device cannot release anything, and the process keeps running.
  (void)hipSetDevice(device);
  for (hipEvent_t event : events) {
    if (event != nullptr) (void)hipEventDestroy(event);
  }
  if (stream != nullptr) (void)hipStreamDestroy(stream);
}

}  // namespace ssimd
