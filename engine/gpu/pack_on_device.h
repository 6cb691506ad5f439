// Planes a video engine left in the slot's device memory (docs/adr/0083), packed on the device
// where an upload would have put them: a luma plane whole, or the two planes of an interleaved
// chroma plane. The decoder finished writing a plane before handing it over (DevicePlane's
// contract), so no wait on its stream is needed. GPU builds only.
#ifndef SSIMD_ENGINE_GPU_PACK_ON_DEVICE_H_
#define SSIMD_ENGINE_GPU_PACK_ON_DEVICE_H_

#include <cstddef>
#include <cstdint>

#include "absl/status/status.h"
#include "engine/device_plane.h"
#include "engine/picture.h"
#include "kernels/hip_portability.h"

namespace ssimd {

// `plane` packed into `dst` on `stream`; INTERNAL when it is not `expected`'s size and depth.
// `what` names it in errors ("reference", "distorted").
absl::Status EnqueueLumaPack(hipStream_t stream, const DevicePlane& plane,
                             const Geometry& expected, void* dst, const char* what);

// The Cb and Cr of an interleaved chroma plane, each cut to its top-left `size`, packed into
// `dst` and `dst` + `plane_step` on `stream`; INTERNAL when it is not such a plane of at least
// that size. `side` names it in errors.
absl::Status EnqueueChromaPack(hipStream_t stream, const DevicePlane& plane,
                               const PlaneSize& size, uint8_t* dst, size_t plane_step,
                               const char* side);

}  // namespace ssimd

#endif  // SSIMD_ENGINE_GPU_PACK_ON_DEVICE_H_
