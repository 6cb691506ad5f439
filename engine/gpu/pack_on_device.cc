#include "engine/gpu/pack_on_device.h"

#include "absl/strings/str_format.h"
#include "engine/gpu/hip_status.h"
#include "kernels/luma_pack_kernels.h"

namespace ssimd {
namespace {

// The launch reading `l`'s samples (of plane `first` where two alternate) into `size`.
LumaPackLaunch LaunchFor(const DevicePlaneLayout& l, int width, int height, int first,
                         void* dst) {
  LumaPackLaunch launch;
  launch.src = l.data;
  launch.src_pitch = l.pitch_bytes;
  launch.width = width;
  launch.height = height;
  launch.bit_depth = l.bit_depth;
  launch.sample_shift = l.sample_shift;
  launch.src_step = l.interleaved_planes;
  launch.src_first = first;
  launch.dst = dst;
  return launch;
}

}  // namespace

absl::Status EnqueueLumaPack(hipStream_t stream, const DevicePlane& plane,
                             const Geometry& expected, void* dst, const char* what) {
  const DevicePlaneLayout& l = plane.layout();
  if (l.width != expected.width || l.height != expected.height ||
      l.bit_depth != expected.bit_depth || l.interleaved_planes != 1) {
    return absl::InternalError(absl::StrFormat(
        "the %s luma on the device is %dx%d %d-bit where %dx%d %d-bit was expected", what,
        l.width, l.height, l.bit_depth, expected.width, expected.height, expected.bit_depth));
  }
  SSIMD_HIP_RETURN_IF_ERROR(LaunchLumaPack(LaunchFor(l, l.width, l.height, 0, dst), stream),
                            absl::StrFormat("packing the %s luma decoded on the device", what));
  return absl::OkStatus();
}

absl::Status EnqueueChromaPack(hipStream_t stream, const DevicePlane& plane,
                               const PlaneSize& size, uint8_t* dst, size_t plane_step,
                               const char* side) {
  const DevicePlaneLayout& l = plane.layout();
  if (l.interleaved_planes != 2 || l.width < size.width || l.height < size.height) {
    return absl::InternalError(absl::StrFormat(
        "the %s chroma on the device is %d plane(s) of %dx%d where Cb and Cr of at least %dx%d "
        "were expected",
        side, l.interleaved_planes, l.width, l.height, size.width, size.height));
  }
  if (size.width == 0 || size.height == 0) return absl::OkStatus();
  constexpr const char* kPlaneNames[] = {"Cb", "Cr"};
  for (int p = 0; p < 2; ++p) {
    SSIMD_HIP_RETURN_IF_ERROR(
        LaunchLumaPack(LaunchFor(l, size.width, size.height, p, dst + p * plane_step), stream),
        absl::StrFormat("packing the %s %s decoded on the device", side, kPlaneNames[p]));
  }
  return absl::OkStatus();
}

}  // namespace ssimd
