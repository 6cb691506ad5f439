#include "engine/gpu/gpu_chroma.h"

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "absl/strings/str_format.h"
#include "base/status_macros.h"
#include "engine/gpu/hip_status.h"
#include "engine/gpu/upscale_on_device.h"
#include "engine/psnr_scores.h"
#include "kernels/psnr_kernels.h"

namespace ssimd {
namespace {

size_t AlignUp(size_t bytes) { return (bytes + 255) & ~size_t{255}; }

size_t PlaneBytes(int width, int height, int bit_depth) {
  return static_cast<size_t>(width) * height * BytesPerSample(bit_depth);
}

// Where the four planes lie in slot.chroma: reference Cb, Cr and distorted Cb, Cr at libvmaf's
// sizes, except that upscaled distorted planes keep their whole stored size (psnr reads their
// top-left part).
struct ChromaLayout {
  PlaneSize scored;       // PsnrPlaneSize of each chroma plane
  PlaneSize distorted;    // the distorted planes as they lie on the device
  size_t reference_plane = 0;
  size_t distorted_plane = 0;
  size_t distorted_at = 0;  // offset of distorted Cb
  size_t device_bytes = 0;
};

ChromaLayout LayOutChroma(const Geometry& geometry, const LumaScalePlan* upscale) {
  ChromaLayout l;
  l.scored = PsnrPlaneSize(geometry, 1);
  l.distorted = upscale != nullptr ? PlaneSize{upscale->dst_width, upscale->dst_height} : l.scored;
  l.reference_plane = AlignUp(PlaneBytes(l.scored.width, l.scored.height, geometry.bit_depth));
  l.distorted_plane =
      AlignUp(PlaneBytes(l.distorted.width, l.distorted.height, geometry.bit_depth));
  l.distorted_at = 2 * l.reference_plane;
  l.device_bytes = l.distorted_at + 2 * l.distorted_plane;
  return l;
}

absl::Status CheckView(const LumaView& view, int width, int height, int bit_depth,
                       const char* what) {
  if (view.width == width && view.height == height && view.bit_depth == bit_depth &&
      (view.data != nullptr || width == 0 || height == 0)) {
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(
      absl::StrFormat("psnr: the %s plane is %dx%d at %d bits; expected %dx%d at %d", what,
                      view.width, view.height, view.bit_depth, width, height, bit_depth));
}

// Packed rows; chroma samples are not range-checked, as the CPU's psnr does not check them.
void StageView(const LumaView& view, uint8_t* staging) {
  const size_t row_bytes = static_cast<size_t>(view.width) * BytesPerSample(view.bit_depth);
  for (int y = 0; y < view.height; ++y) {
    std::memcpy(staging + static_cast<size_t>(y) * row_bytes,
                view.data + static_cast<size_t>(y) * view.stride_bytes, row_bytes);
  }
}

constexpr const char* kReferenceNames[] = {"reference Cb", "reference Cr"};
constexpr const char* kDistortedNames[] = {"distorted Cb", "distorted Cr"};
constexpr const char* kPlaneNames[] = {"Cb", "Cr"};

}  // namespace

absl::Status UploadChroma(StreamSlot& slot, const Geometry& geometry, const FrameChroma& chroma,
                          const LumaScalePlan* upscale) {
  const ChromaLayout layout = LayOutChroma(geometry, upscale);
  const UpscaleLayout block = upscale != nullptr ? LayOutUpscale(*upscale, 2) : UpscaleLayout();
  // Staged as on the device, then the upscale's block (its input planes and filters) after.
  const size_t distorted_staging =
      upscale != nullptr ? block.filters_end : 2 * layout.distorted_plane;
  SSIMD_RETURN_IF_ERROR(
      slot.chroma_upload.Reserve(layout.distorted_at + distorted_staging, "chroma staging"));
  SSIMD_RETURN_IF_ERROR(slot.chroma.Reserve(layout.device_bytes, "chroma"));
  if (upscale != nullptr) {
    SSIMD_RETURN_IF_ERROR(slot.chroma_upscale.Reserve(block.device_bytes, "chroma upscale"));
  }
  uint8_t* staging = slot.chroma_upload.as<uint8_t>();
  for (int p = 0; p < 2; ++p) {
    SSIMD_RETURN_IF_ERROR(CheckView(chroma.reference[p], layout.scored.width,
                                    layout.scored.height, geometry.bit_depth,
                                    kReferenceNames[p]));
    StageView(chroma.reference[p], staging + p * layout.reference_plane);
  }
  uint8_t* distorted = staging + layout.distorted_at;
  for (int p = 0; p < 2; ++p) {
    const int width = upscale != nullptr ? upscale->src_width : layout.scored.width;
    const int height = upscale != nullptr ? upscale->src_height : layout.scored.height;
    SSIMD_RETURN_IF_ERROR(
        CheckView(chroma.distorted[p], width, height, geometry.bit_depth, kDistortedNames[p]));
    StageView(chroma.distorted[p],
              distorted + p * (upscale != nullptr ? block.plane : layout.distorted_plane));
  }
  SSIMD_HIP_RETURN_IF_ERROR(hipMemcpyAsync(slot.chroma.as<uint8_t>(), staging,
                                           layout.distorted_at, hipMemcpyHostToDevice,
                                           slot.stream),
                            "uploading the reference chroma");
  uint8_t* distorted_target = slot.chroma.as<uint8_t>() + layout.distorted_at;
  if (upscale != nullptr) {
    StageUpscaleFilters(*upscale, block, distorted);
    distorted_target = slot.chroma_upscale.as<uint8_t>();
  }
  SSIMD_HIP_RETURN_IF_ERROR(hipMemcpyAsync(distorted_target, distorted, distorted_staging,
                                           hipMemcpyHostToDevice, slot.stream),
                            "uploading the distorted chroma");
  return absl::OkStatus();
}

absl::Status EnqueueChromaSums(StreamSlot& slot, const Geometry& geometry,
                               const LumaScalePlan* upscale,
                               unsigned long long* sse) {  // NOLINT(runtime/int)
  const ChromaLayout layout = LayOutChroma(geometry, upscale);
  uint8_t* base = slot.chroma.as<uint8_t>();
  const int sample = BytesPerSample(geometry.bit_depth);
  for (int p = 0; p < 2; ++p) {
    uint8_t* distorted = base + layout.distorted_at + p * layout.distorted_plane;
    if (upscale != nullptr) {
      SSIMD_RETURN_IF_ERROR(EnqueuePlaneUpscale(slot.stream, *upscale,
                                                LayOutUpscale(*upscale, 2),
                                                slot.chroma_upscale.as<uint8_t>(), p, distorted,
                                                kPlaneNames[p]));
    }
    PsnrSseLaunch launch;
    launch.reference = base + p * layout.reference_plane;
    launch.distorted = distorted;
    launch.width = layout.scored.width;
    launch.height = layout.scored.height;
    launch.bit_depth = geometry.bit_depth;
    launch.distorted_pitch = static_cast<size_t>(layout.distorted.width) * sample;
    launch.sse = sse + p;
    SSIMD_HIP_RETURN_IF_ERROR(LaunchPsnrSse(launch, slot.stream),
                              "summing psnr's chroma squared errors");
  }
  return absl::OkStatus();
}

}  // namespace ssimd
