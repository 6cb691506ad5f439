#include "engine/gpu/gpu_chroma.h"

#include <cstddef>
#include <cstdint>

#include "base/status_macros.h"
#include "engine/gpu/chroma_staging.h"
#include "engine/gpu/hip_status.h"
#include "engine/gpu/upscale_on_device.h"
#include "kernels/psnr_kernels.h"

namespace ssimd {
namespace {

constexpr const char* kPlaneNames[] = {"Cb", "Cr"};

}  // namespace

absl::Status UploadChroma(StreamSlot& slot, const Geometry& geometry, const FrameChroma& chroma,
                          const LumaScalePlan* upscale) {
  const ChromaLayout layout = LayOutChroma(geometry, upscale);
  SSIMD_RETURN_IF_ERROR(slot.chroma_upload.Reserve(layout.staged_bytes, "chroma staging"));
  SSIMD_RETURN_IF_ERROR(slot.chroma.Reserve(layout.device_bytes, "chroma"));
  if (upscale != nullptr) {
    SSIMD_RETURN_IF_ERROR(
        slot.chroma_upscale.Reserve(layout.upscale.device_bytes, "chroma upscale"));
  }
  uint8_t* staging = slot.chroma_upload.as<uint8_t>();
  SSIMD_RETURN_IF_ERROR(StageChroma(geometry, chroma, upscale, layout, staging));
  // The distorted planes go where they are scored, or with an upscale into its block.
  uint8_t* distorted_target = upscale != nullptr ? slot.chroma_upscale.as<uint8_t>()
                                                 : slot.chroma.as<uint8_t>() + layout.distorted_at;
  SSIMD_HIP_RETURN_IF_ERROR(hipMemcpyAsync(slot.chroma.as<uint8_t>(), staging,
                                           layout.distorted_at, hipMemcpyHostToDevice,
                                           slot.stream),
                            "uploading the reference chroma");
  SSIMD_HIP_RETURN_IF_ERROR(hipMemcpyAsync(distorted_target, staging + layout.distorted_at,
                                           layout.staged_bytes - layout.distorted_at,
                                           hipMemcpyHostToDevice, slot.stream),
                            "uploading the distorted chroma");
  return absl::OkStatus();
}

absl::Status EnqueueChromaSums(StreamSlot& slot, const Geometry& geometry,
                               const LumaScalePlan* upscale,
                               unsigned long long* sse) {  // NOLINT(runtime/int)
  const ChromaLayout layout = LayOutChroma(geometry, upscale);
  uint8_t* base = slot.chroma.as<uint8_t>();
  for (int p = 0; p < 2; ++p) {
    uint8_t* distorted = base + layout.distorted_at + p * layout.distorted_plane;
    if (upscale != nullptr) {
      SSIMD_RETURN_IF_ERROR(EnqueuePlaneUpscale(slot.stream, *upscale, layout.upscale,
                                                slot.chroma_upscale.as<uint8_t>(), p, distorted,
                                                kPlaneNames[p]));
    }
    PsnrSseLaunch launch;
    launch.reference = base + p * layout.reference_plane;
    launch.distorted = distorted;
    launch.width = layout.scored.width;
    launch.height = layout.scored.height;
    launch.bit_depth = geometry.bit_depth;
    launch.distorted_pitch =
        static_cast<size_t>(layout.distorted.width) * BytesPerSample(geometry.bit_depth);
    launch.sse = sse + p;
    SSIMD_HIP_RETURN_IF_ERROR(LaunchPsnrSse(launch, slot.stream),
                              "summing psnr's chroma squared errors");
  }
  return absl::OkStatus();
}

}  // namespace ssimd
