// psnr's chroma on its way to a GPU (gpu_chroma.h): where each side's Cb and Cr lie in the
// slot's chroma buffers, and their staging as packed rows, with a rendition's chroma before its
// upscale staged in its upscale block beside the chroma plan's filters. Device-free, so it is
// tested without a GPU.
#ifndef SSIMD_ENGINE_GPU_CHROMA_STAGING_H_
#define SSIMD_ENGINE_GPU_CHROMA_STAGING_H_

#include <cstddef>
#include <cstdint>

#include "absl/status/status.h"
#include "engine/gpu/upscale_layout.h"
#include "engine/luma_scale_plan.h"
#include "engine/picture.h"

namespace ssimd {

// On the device: reference Cb, Cr and distorted Cb, Cr, each at libvmaf's plane size
// (PsnrPlaneSize), except that upscaled distorted planes have their whole stored size (psnr reads
// their top-left part). Staged: the same up to distorted_at, then the distorted planes as on the
// device, or, with an upscale, its block (upscale: both small planes, then the filters).
struct ChromaLayout {
  PlaneSize scored;     // PsnrPlaneSize of each chroma plane
  PlaneSize distorted;  // the distorted planes as they lie on the device
  size_t reference_plane = 0;  // bytes from one reference plane to the next
  size_t distorted_plane = 0;  // the same for the distorted planes on the device
  // The distorted planes as they arrive (staged, or packed from a device plane): before the
  // upscale, in its block, with one; else as scored. Where they start, one plane to the next.
  PlaneSize distorted_input;
  size_t distorted_input_plane = 0;
  size_t distorted_input_bytes = 0;  // both planes: where an upscale's filters start
  size_t distorted_at = 0;     // offset of distorted Cb, on the device and in staging
  size_t device_bytes = 0;
  bool upscaled = false;
  UpscaleLayout upscale;       // with an upscale: its block, staged from distorted_at
  size_t staged_bytes = 0;
};

// `upscale` is the chroma plan of a rendition whose chroma is upscaled, else null.
ChromaLayout LayOutChroma(const Geometry& geometry, const LumaScalePlan* upscale);

// Stages `chroma` (PiecewiseFramePair::chroma: with `upscale`, the distorted views are the whole
// planes before it) into `staging` (layout.staged_bytes), but for a side that lies on the device
// (FrameChroma::*_on_device), which is left out, its views only checked for size; an upscale's
// filters are staged either way. Chroma samples are not range-checked, as the CPU's psnr does not
// check them. INVALID_ARGUMENT naming the plane when a view has another size than the layout's.
absl::Status StageChroma(const Geometry& geometry, const FrameChroma& chroma,
                         const LumaScalePlan* upscale, const ChromaLayout& layout,
                         uint8_t* staging);

}  // namespace ssimd

#endif  // SSIMD_ENGINE_GPU_CHROMA_STAGING_H_
