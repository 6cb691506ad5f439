// Pictures a hardware decoder returns, made identical to the software decoder's: the engines hand
// over semi-planar layouts with samples in the high bits (NV12, P010, P016) or 16-bit planar 4:4:4,
// while libavcodec's software decoders give planar YUV with samples in the low bits. Both decode
// the same bitstream to the same samples, so after this rearrangement every later step (scaling,
// scoring) sees the bytes a CPU decode gives.
#ifndef SSIMD_ENGINE_MEDIA_HW_FRAME_DOWNLOAD_H_
#define SSIMD_ENGINE_MEDIA_HW_FRAME_DOWNLOAD_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

extern "C" {
#include <libavutil/frame.h>
#include <libavutil/pixfmt.h>
}

namespace ssimd {

// Whether a stream whose software decoder outputs `software` can be decoded by an engine and
// brought back here: planar 4:2:0 or 4:4:4 at 8, 10 or 12 bits.
bool HardwareOutputConvertible(AVPixelFormat software);

// Rearranges `downloaded` (a device picture copied to the host: NV12, P010LE, P016LE, YUV444P or
// YUV444P16LE) into `out` in `software` format, allocating out's buffers when they are missing or
// of another size. Frame properties (timestamps, range, ...) are copied. INTERNAL when the pair of
// formats is not one the engines produce for that software format.
absl::Status ConvertHardwareOutput(const AVFrame& downloaded, AVPixelFormat software, AVFrame* out);

// How many bits higher than `software`'s samples the engine stores them in `stored` (its
// download format, or the frames' sw_format on the device): 0, 4 or 6. INTERNAL for a pair the
// engines do not produce.
absl::StatusOr<int> HardwareSampleShift(AVPixelFormat software, AVPixelFormat stored);

// Whether the engine stores `software`'s chroma as `stored` does, Cb and Cr interleaved in one
// plane (NV12, P010, P016); INTERNAL for a pair the engines do not produce.
absl::StatusOr<bool> HardwareChromaInterleaved(AVPixelFormat software, AVPixelFormat stored);

// The chroma of `downloaded` (as ConvertHardwareOutput takes it) as the software decoder's Cb then
// Cr planes, each tightly packed at its stored size (frame_planes.h's CopyChroma of the converted
// picture), into *chroma; the luma is not converted. INTERNAL as ConvertHardwareOutput.
absl::Status ConvertHardwareChroma(const AVFrame& downloaded, AVPixelFormat software,
                                   std::string* chroma);

// Copies the picture `on_device` (a frame of a device's hardware frames) to the host into
// `downloaded` (reused scratch) and rearranges it into `out` as ConvertHardwareOutput does.
// UNAVAILABLE when the copy fails.
absl::Status DownloadHardwarePicture(const AVFrame& on_device, AVPixelFormat software,
                                     AVFrame* downloaded, AVFrame* out);

// The chroma of `on_device` copied to the host (through `downloaded`, reused scratch) as
// ConvertHardwareChroma gives it. UNAVAILABLE when the copy fails.
absl::Status DownloadHardwareChroma(const AVFrame& on_device, AVPixelFormat software,
                                    AVFrame* downloaded, std::string* chroma);

// The luma of `on_device` copied to the host as ssimd's packed luma (LumaBytes of its size at
// `software`'s depth, samples in the low bits) into `out`.
absl::Status DownloadHardwareLuma(const AVFrame& on_device, AVPixelFormat software,
                                  uint8_t* out);

}  // namespace ssimd

#endif  // SSIMD_ENGINE_MEDIA_HW_FRAME_DOWNLOAD_H_
