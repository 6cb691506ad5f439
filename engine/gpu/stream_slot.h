// One stream slot: a device stream, its timing events and the buffers one frame needs. A frame
// holds the slot from upload to read-back, so the buffers never need locking. GPU builds only.
#ifndef SSIMD_ENGINE_GPU_STREAM_SLOT_H_
#define SSIMD_ENGINE_GPU_STREAM_SLOT_H_

#include <atomic>
#include <cstdint>
#include <memory>

#include "absl/status/statusor.h"
#include "engine/gpu/device_buffers.h"
#include "kernels/hip_portability.h"

namespace ssimd {

struct StreamSlot {
  // Creates the stream and events on `device`; buffers are allocated by the first frame.
  static absl::StatusOr<std::unique_ptr<StreamSlot>> Create(int device,
                                                            std::atomic<int64_t>* device_bytes);
  ~StreamSlot();

  int device = 0;
  hipStream_t stream = nullptr;
  // Upload start, upload done, kernels done, read-back done.
  hipEvent_t events[4] = {};

  GrowableBuffer upload{MemoryKind::kPinnedHost, nullptr};
  GrowableBuffer readback{MemoryKind::kPinnedHost, nullptr};
  GrowableBuffer luma;       // reference then distorted raw luma, packed rows
  GrowableBuffer decimated;  // float_ssim: the two decimated binary32 planes
  // The five horizontally filtered planes: float_ms_ssim's, scale by scale, then float_ssim's
  // (gpu_frame.cc's EnqueueKernels says why in that order).
  GrowableBuffer filtered;
  GrowableBuffer float_partials;
  GrowableBuffer float_terms;  // float_ssim, float_ms_ssim: terms, only for an ordered host sum
  GrowableBuffer ms_ssim_pyramid;   // float_ms_ssim: both planes of each of the five scales
  GrowableBuffer ms_ssim_partials;  // float_ms_ssim: every scale's block sums
  GrowableBuffer moments;  // ssim: five int64 planes of horizontal moments
  GrowableBuffer ssim_partials;
  GrowableBuffer ssim_terms;  // ssim: per-pixel terms for the ordered host sum
  GrowableBuffer psnr_sse;  // psnr: each plane's sum of squared errors, a 64-bit word each
  // vmaf: the adm, vif and motion kernels' shared workspace, their sums, and vif's log2 table
  // (copied once, on the first vmaf frame).
  GrowableBuffer vmaf_workspace;
  GrowableBuffer vmaf_sums;
  GrowableBuffer vmaf_log2_table;
  bool vmaf_log2_table_ready = false;
  // A distorted plane before its upscale, the scaler's filters and its intermediate rows.
  GrowableBuffer upscale;
  // psnr's chroma (gpu_chroma.h): its staging, the four planes, and a rendition's chroma upscale.
  GrowableBuffer chroma_upload{MemoryKind::kPinnedHost, nullptr};
  GrowableBuffer chroma;
  GrowableBuffer chroma_upscale;

 private:
  explicit StreamSlot(std::atomic<int64_t>* device_bytes);
};

}  // namespace ssimd

#endif  // SSIMD_ENGINE_GPU_STREAM_SLOT_H_
