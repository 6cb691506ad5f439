#include "engine/cpu/sample_plane.h"

namespace ssimd {

SamplePlane::SamplePlane(const LumaView& view)
    : width_(view.width), height_(view.height), bit_depth_(view.bit_depth) {
  if (!wide()) {
    bytes_ = view.data;
    stride_ = view.stride_bytes;
    return;
  }
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  if (reinterpret_cast<uintptr_t>(view.data) % alignof(uint16_t) == 0 &&
      view.stride_bytes % sizeof(uint16_t) == 0) {
    words_ = reinterpret_cast<const SampleWord*>(view.data);
    stride_ = view.stride_bytes / sizeof(uint16_t);
    return;
  }
#endif
  stride_ = static_cast<size_t>(width_);
  copy_.resize(stride_ * static_cast<size_t>(height_));
  for (int y = 0; y < height_; ++y) {
    const uint8_t* src = view.data + static_cast<size_t>(y) * view.stride_bytes;
    uint16_t* dst = copy_.data() + static_cast<size_t>(y) * stride_;
    for (int x = 0; x < width_; ++x) {
      dst[x] = static_cast<uint16_t>(src[2 * x] | (src[2 * x + 1] << 8));
    }
  }
  words_ = reinterpret_cast<const SampleWord*>(copy_.data());
}

}  // namespace ssimd
