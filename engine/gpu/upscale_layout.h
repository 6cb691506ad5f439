// Where an upscale's pieces lie in one block (docs/adr/0080): the planes before the upscale, the
// plan's filter arrays (what is staged and uploaded), then, on the device only, the intermediate
// rows the two passes share. Device-free, so it is tested without a GPU; the launch is
// upscale_on_device.h's.
#ifndef SSIMD_ENGINE_GPU_UPSCALE_LAYOUT_H_
#define SSIMD_ENGINE_GPU_UPSCALE_LAYOUT_H_

#include <cstddef>
#include <cstdint>

#include "engine/luma_scale_plan.h"

namespace ssimd {

// Offsets in the block: `planes` packed input planes of the plan's source size first, then the
// filter arrays (up to filters_end), then the intermediate rows.
struct UpscaleLayout {
  size_t plane = 0;  // bytes of one input plane
  size_t h_first = 0, h_coefficients = 0, v_first = 0, v_coefficients = 0;
  size_t filters_end = 0;
  size_t intermediate = 0;
  size_t device_bytes = 0;
};

UpscaleLayout LayOutUpscale(const LumaScalePlan& plan, int planes);

// The plan's filter arrays copied into a staged block laid out by LayOutUpscale.
void StageUpscaleFilters(const LumaScalePlan& plan, const UpscaleLayout& layout, uint8_t* block);

}  // namespace ssimd

#endif  // SSIMD_ENGINE_GPU_UPSCALE_LAYOUT_H_
