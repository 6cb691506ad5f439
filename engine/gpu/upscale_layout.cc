#include "engine/gpu/upscale_layout.h"

#include <cstring>
#include <vector>

#include "engine/gpu/device_alignment.h"

namespace ssimd {
namespace {

template <typename T>
void CopyArray(const std::vector<T>& from, uint8_t* to) {
  std::memcpy(to, from.data(), sizeof(T) * from.size());
}

}  // namespace

UpscaleLayout LayOutUpscale(const LumaScalePlan& plan, int planes) {
  UpscaleLayout l;
  l.plane = PlanInputBytes(plan);
  l.h_first = DeviceAligned(l.plane * planes);
  l.h_coefficients =
      DeviceAligned(l.h_first + sizeof(int32_t) * plan.horizontal.first_input.size());
  l.v_first =
      DeviceAligned(l.h_coefficients + sizeof(int16_t) * plan.horizontal.coefficients.size());
  l.v_coefficients =
      DeviceAligned(l.v_first + sizeof(int32_t) * plan.vertical.first_input.size());
  l.filters_end = l.v_coefficients + sizeof(int16_t) * plan.vertical.coefficients.size();
  l.intermediate = DeviceAligned(l.filters_end);
  l.device_bytes =
      l.intermediate + sizeof(int16_t) * static_cast<size_t>(plan.src_height) * plan.dst_width;
  return l;
}

void StageUpscaleFilters(const LumaScalePlan& plan, const UpscaleLayout& layout, uint8_t* block) {
  CopyArray(plan.horizontal.first_input, block + layout.h_first);
  CopyArray(plan.horizontal.coefficients, block + layout.h_coefficients);
  CopyArray(plan.vertical.first_input, block + layout.v_first);
  CopyArray(plan.vertical.coefficients, block + layout.v_coefficients);
}

}  // namespace ssimd
