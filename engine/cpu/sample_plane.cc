#include "engine/cpu/sample_plane.h"

#include <cstring>

namespace ssimd {

SamplePlane::SamplePlane(const LumaView& view)
    : width_(view.width), height_(view.height), bit_depth_(view.bit_depth) {
  if (!wide()) {
    bytes_ = view.data;
    stride_ = view.stride_bytes;
    return;
  }
  stride_ = static_cast<size_t>(width_);
  words_.resize(stride_ * static_cast<size_t>(height_));
  for (int y = 0; y < height_; ++y) {
    const uint8_t* src = view.data + static_cast<size_t>(y) * view.stride_bytes;
    uint16_t* dst = words_.data() + static_cast<size_t>(y) * stride_;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    std::memcpy(dst, src, stride_ * sizeof(uint16_t));  // already host order
#else
    for (int x = 0; x < width_; ++x) {
      dst[x] = static_cast<uint16_t>(src[2 * x] | (src[2 * x + 1] << 8));
    }
#endif
  }
}

}  // namespace ssimd
