// The one mapping between the API's PixelFormat and the engine's ChromaFormat, for the server
// (reading requests, listing formats) and the client (writing requests).
#ifndef SSIMD_PROTO_PIXEL_FORMAT_H_
#define SSIMD_PROTO_PIXEL_FORMAT_H_

#include <optional>

#include "engine/picture.h"
#include "proto/ssimd/v1/ssimd.pb.h"

namespace ssimd {

v1::PixelFormat PixelFormatToProto(ChromaFormat chroma);
v1::Geometry GeometryToProto(const Geometry& geometry);

// PIXEL_FORMAT_UNSPECIFIED reads as 4:2:0, the API's documented default. Takes the raw enum
// value, since a request may carry one this build does not know: those give nullopt.
std::optional<ChromaFormat> PixelFormatFromProto(int pixel_format);

}  // namespace ssimd

#endif  // SSIMD_PROTO_PIXEL_FORMAT_H_
