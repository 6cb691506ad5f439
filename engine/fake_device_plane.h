// Tests: a "device" plane kept in host memory, packed, for code that must copy device planes to
// the host (backends without a device, staging for another device).
#ifndef SSIMD_ENGINE_FAKE_DEVICE_PLANE_H_
#define SSIMD_ENGINE_FAKE_DEVICE_PLANE_H_

#include <cstring>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "engine/device_plane.h"

namespace ssimd {

class FakeDevicePlane final : public DevicePlane {
 public:
  // `packed`: the plane as ssimd's packed luma; copies fail with `copy_status` when it is not OK.
  FakeDevicePlane(std::string packed, int width, int height, int bit_depth,
                  absl::Status copy_status = absl::OkStatus())
      : packed_(std::move(packed)), copy_status_(std::move(copy_status)) {
    layout_.device = -1;  // no device a backend has
    layout_.data = packed_.data();
    layout_.pitch_bytes = static_cast<size_t>(width) * (bit_depth > 8 ? 2 : 1);
    layout_.width = width;
    layout_.height = height;
    layout_.bit_depth = bit_depth;
  }
  // A semi-planar picture's chroma: `packed` holds the Cb plane then the Cr plane, each
  // width x height.
  void set_interleaved_planes(int planes) { layout_.interleaved_planes = planes; }

  const DevicePlaneLayout& layout() const override { return layout_; }
  absl::Status CopyToHost(uint8_t* out) const override {
    ++copies;
    if (!copy_status_.ok()) return copy_status_;
    std::memcpy(out, packed_.data(), packed_.size());
    return absl::OkStatus();
  }
  mutable int copies = 0;

 private:
  const std::string packed_;
  const absl::Status copy_status_;
  DevicePlaneLayout layout_;
};

}  // namespace ssimd

#endif  // SSIMD_ENGINE_FAKE_DEVICE_PLANE_H_
