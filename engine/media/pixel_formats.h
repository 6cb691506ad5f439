// Between FFmpeg's pixel formats and ssimd's Geometry (planar YUV or grey, 8 to 16 bits).
#ifndef SSIMD_ENGINE_MEDIA_PIXEL_FORMATS_H_
#define SSIMD_ENGINE_MEDIA_PIXEL_FORMATS_H_

#include <string>

#include "absl/status/statusor.h"
#include "engine/picture.h"

extern "C" {
#include <libavutil/pixfmt.h>
}

namespace ssimd {

// The geometry of a `width` x `height` picture in `format`; INVALID_ARGUMENT (naming the format)
// for anything that is not planar YUV 4:2:0/4:2:2/4:4:4 or grey at 8, 10, 12 or 16 bits.
// Full-range ("yuvj") formats count as their limited-range twins: the samples are the same.
absl::StatusOr<Geometry> GeometryForPixelFormat(AVPixelFormat format, int width, int height);

// The planar, little-endian FFmpeg format that holds `geometry`'s pictures, as in a .y4m file.
AVPixelFormat PixelFormatForGeometry(const Geometry& geometry);

// FFmpeg's name of a format, e.g. "yuv420p10le"; "unknown" when it has none.
std::string PixelFormatName(AVPixelFormat format);

}  // namespace ssimd

#endif  // SSIMD_ENGINE_MEDIA_PIXEL_FORMATS_H_
