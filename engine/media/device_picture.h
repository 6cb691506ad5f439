// A picture NVDEC decoded, kept in device memory for the GPU scorer (docs/adr/0083): its luma, and
// its interleaved chroma where a metric reads it, as DevicePlanes (engine/device_plane.h), each
// holding a reference to the frame (a copy out of the engine's surface, in libavcodec's frame
// pool) until the last reader lets go.
#ifndef SSIMD_ENGINE_MEDIA_DEVICE_PICTURE_H_
#define SSIMD_ENGINE_MEDIA_DEVICE_PICTURE_H_

#include <memory>

#include "absl/status/statusor.h"
#include "engine/device_plane.h"

extern "C" {
#include <libavutil/frame.h>
#include <libavutil/pixfmt.h>
}

namespace ssimd {

// Whether `frame` lies in a device's memory (a frame of hardware frames).
bool IsDeviceFrame(const AVFrame& frame);

// The luma of `frame` (a CUDA frame whose copy from the engine is complete), on GPU
// `device_index`, for a stream that decodes to `software` in software. INTERNAL when the frame
// is not a CUDA frame of a layout the engines produce for `software`.
absl::StatusOr<std::shared_ptr<const DevicePlane>> MakeDevicePictureLuma(
    const AVFrame& frame, AVPixelFormat software, int device_index);

// The chroma of the same frame as one plane of interleaved Cb and Cr samples (NV12, P010, P016),
// or null where the engine stores the chroma planes apart (4:4:4), which are brought to the host
// instead. INTERNAL as MakeDevicePictureLuma.
absl::StatusOr<std::shared_ptr<const DevicePlane>> MakeDevicePictureChroma(
    const AVFrame& frame, AVPixelFormat software, int device_index);

}  // namespace ssimd

#endif  // SSIMD_ENGINE_MEDIA_DEVICE_PICTURE_H_
