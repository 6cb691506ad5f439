#include "engine/gpu/chroma_staging.h"

#include "absl/strings/str_format.h"
#include "base/status_macros.h"
#include "engine/gpu/device_alignment.h"
#include "engine/gpu/staging.h"
#include "engine/psnr_scores.h"

namespace ssimd {
namespace {

size_t PlaneBytes(const PlaneSize& size, int bit_depth) {
  return static_cast<size_t>(size.width) * size.height * BytesPerSample(bit_depth);
}

constexpr const char* kReferenceNames[] = {"reference Cb", "reference Cr"};
constexpr const char* kDistortedNames[] = {"distorted Cb", "distorted Cr"};

// `view` as packed rows into `staging` (null: a plane on the device, only checked), once it has
// the expected size; chroma samples are not range-checked (CopyPackedRows).
absl::Status StageView(const LumaView& view, const PlaneSize& size, int bit_depth,
                       const char* what, uint8_t* staging) {
  if (view.width != size.width || view.height != size.height || view.bit_depth != bit_depth ||
      (staging != nullptr && view.data == nullptr && size.width > 0 && size.height > 0)) {
    return absl::InvalidArgumentError(
        absl::StrFormat("psnr: the %s plane is %dx%d at %d bits; expected %dx%d at %d", what,
                        view.width, view.height, view.bit_depth, size.width, size.height,
                        bit_depth));
  }
  if (staging != nullptr) CopyPackedRows(view, staging);
  return absl::OkStatus();
}

}  // namespace

ChromaLayout LayOutChroma(const Geometry& geometry, const LumaScalePlan* upscale) {
  ChromaLayout l;
  l.scored = PsnrPlaneSize(geometry, 1);
  l.upscaled = upscale != nullptr;
  l.distorted = l.upscaled ? PlaneSize{upscale->dst_width, upscale->dst_height} : l.scored;
  l.reference_plane = DeviceAligned(PlaneBytes(l.scored, geometry.bit_depth));
  l.distorted_plane = DeviceAligned(PlaneBytes(l.distorted, geometry.bit_depth));
  l.distorted_at = 2 * l.reference_plane;
  l.device_bytes = l.distorted_at + 2 * l.distorted_plane;
  if (l.upscaled) {
    l.upscale = LayOutUpscale(*upscale, 2);
    l.distorted_input = PlaneSize{upscale->src_width, upscale->src_height};
    l.distorted_input_plane = l.upscale.plane;
    l.distorted_input_bytes = l.upscale.h_first;
  } else {
    l.distorted_input = l.scored;
    l.distorted_input_plane = l.distorted_plane;
    l.distorted_input_bytes = 2 * l.distorted_plane;
  }
  l.staged_bytes = l.distorted_at + (l.upscaled ? l.upscale.filters_end : 2 * l.distorted_plane);
  return l;
}

absl::Status StageChroma(const Geometry& geometry, const FrameChroma& chroma,
                         const LumaScalePlan* upscale, const ChromaLayout& layout,
                         uint8_t* staging) {
  uint8_t* distorted = staging + layout.distorted_at;
  const bool reference_staged = chroma.reference_on_device == nullptr;
  const bool distorted_staged = chroma.distorted_on_device == nullptr;
  for (int p = 0; p < 2; ++p) {
    SSIMD_RETURN_IF_ERROR(
        StageView(chroma.reference[p], layout.scored, geometry.bit_depth, kReferenceNames[p],
                  reference_staged ? staging + p * layout.reference_plane : nullptr));
    SSIMD_RETURN_IF_ERROR(
        StageView(chroma.distorted[p], layout.distorted_input, geometry.bit_depth,
                  kDistortedNames[p],
                  distorted_staged ? distorted + p * layout.distorted_input_plane : nullptr));
  }
  if (upscale != nullptr) StageUpscaleFilters(*upscale, layout.upscale, distorted);
  return absl::OkStatus();
}

}  // namespace ssimd
