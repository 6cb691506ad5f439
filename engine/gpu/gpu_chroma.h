// psnr's chroma on the GPU: each side's Cb and Cr staged and uploaded beside the luma (or packed
// from a video engine's interleaved plane on the device), a rendition's chroma upscaled on the
// device with its plan's chroma plan (the luma's kernels, docs/adr/0080), and each plane's squared
// errors summed there as the luma's are. The sums are integers, so the scores are the CPU's bits.
// GPU builds only.
#ifndef SSIMD_ENGINE_GPU_GPU_CHROMA_H_
#define SSIMD_ENGINE_GPU_GPU_CHROMA_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "engine/gpu/stream_slot.h"
#include "engine/luma_scale_plan.h"
#include "engine/picture.h"

namespace ssimd {

// Stages and uploads `chroma` on the slot's stream, or packs a side that a video engine left on
// the slot's device where it lies (a side on another device comes through the host). Without
// `upscale` every view has libvmaf's plane size (PsnrPlaneSize); with it (a chroma plan), the
// distorted views are the whole planes before the upscale, at the plan's source size
// (PiecewiseFramePair::chroma). INVALID_ARGUMENT when a view has another size.
// Says how many device planes (one per side: Cb and Cr interleaved) were read where they lay and
// how many came through the host.
struct ChromaPlanesRead {
  int on_device = 0;
  int through_host = 0;
};
absl::StatusOr<ChromaPlanesRead> UploadChroma(StreamSlot& slot, const Geometry& geometry,
                                              const FrameChroma& chroma,
                                              const LumaScalePlan* upscale);

// After UploadChroma, on the same stream: the upscale where there is one, then the squared-error
// sums of Cb and Cr into sse[0] and sse[1] (device words).
absl::Status EnqueueChromaSums(StreamSlot& slot, const Geometry& geometry,
                               const LumaScalePlan* upscale,
                               unsigned long long* sse);  // NOLINT(runtime/int): atomicAdd's type

}  // namespace ssimd

#endif  // SSIMD_ENGINE_GPU_GPU_CHROMA_H_
