#include "engine/gpu/gpu_chroma.h"

#include <cstddef>
#include <cstdint>
#include <vector>

#include "base/status_macros.h"
#include "engine/device_plane.h"
#include "engine/gpu/chroma_staging.h"
#include "engine/gpu/hip_status.h"
#include "engine/gpu/pack_on_device.h"
#include "engine/gpu/upscale_on_device.h"
#include "engine/psnr_scores.h"
#include "kernels/psnr_kernels.h"

namespace ssimd {
namespace {

constexpr const char* kPlaneNames[] = {"Cb", "Cr"};

// Whether a side's chroma is staged from the host or lies on the slot's device.
bool OnSlotDevice(const DevicePlane* plane, const StreamSlot& slot) {
  return plane == nullptr || plane->layout().device == slot.device;
}

}  // namespace

absl::StatusOr<ChromaPlanesRead> UploadChroma(StreamSlot& slot, const Geometry& geometry,
                                              const FrameChroma& given,
                                              const LumaScalePlan* upscale) {
  // Chroma left on another device comes through the host, both sides then (a rare layout: the
  // decoding GPU is not the scoring one).
  std::vector<uint8_t> host_scratch;
  absl::StatusOr<FrameChroma> host;
  const FrameChroma* chroma = &given;
  ChromaPlanesRead read;
  const int device_planes =
      (given.reference_on_device != nullptr) + (given.distorted_on_device != nullptr);
  if (!OnSlotDevice(given.reference_on_device, slot) ||
      !OnSlotDevice(given.distorted_on_device, slot)) {
    host = ChromaOnHost(given, host_scratch);
    if (!host.ok()) return host.status();
    chroma = &*host;
    read.through_host = device_planes;
  } else {
    read.on_device = device_planes;
  }
  const ChromaLayout layout = LayOutChroma(geometry, upscale);
  SSIMD_RETURN_IF_ERROR(slot.chroma_upload.Reserve(layout.staged_bytes, "chroma staging"));
  SSIMD_RETURN_IF_ERROR(slot.chroma.Reserve(layout.device_bytes, "chroma"));
  if (upscale != nullptr) {
    SSIMD_RETURN_IF_ERROR(
        slot.chroma_upscale.Reserve(layout.upscale.device_bytes, "chroma upscale"));
  }
  uint8_t* staging = slot.chroma_upload.as<uint8_t>();
  SSIMD_RETURN_IF_ERROR(StageChroma(geometry, *chroma, upscale, layout, staging));
  uint8_t* device = slot.chroma.as<uint8_t>();
  if (chroma->reference_on_device != nullptr) {
    SSIMD_RETURN_IF_ERROR(EnqueueChromaPack(slot.stream, *chroma->reference_on_device,
                                            layout.scored, device, layout.reference_plane,
                                            "reference"));
  } else {
    SSIMD_HIP_RETURN_IF_ERROR(hipMemcpyAsync(device, staging, layout.distorted_at,
                                             hipMemcpyHostToDevice, slot.stream),
                              "uploading the reference chroma");
  }
  // The distorted planes go where they are scored, or with an upscale into its block, whose
  // filters are uploaded however the planes come.
  uint8_t* distorted_target =
      upscale != nullptr ? slot.chroma_upscale.as<uint8_t>() : device + layout.distorted_at;
  const size_t distorted_staged = layout.staged_bytes - layout.distorted_at;
  size_t upload_from = 0;
  if (chroma->distorted_on_device != nullptr) {
    SSIMD_RETURN_IF_ERROR(EnqueueChromaPack(slot.stream, *chroma->distorted_on_device,
                                            layout.distorted_input, distorted_target,
                                            layout.distorted_input_plane, "distorted"));
    upload_from = layout.distorted_input_bytes;
  }
  if (upload_from < distorted_staged) {
    SSIMD_HIP_RETURN_IF_ERROR(
        hipMemcpyAsync(distorted_target + upload_from, staging + layout.distorted_at + upload_from,
                       distorted_staged - upload_from, hipMemcpyHostToDevice, slot.stream),
        "uploading the distorted chroma");
  }
  return read;
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
