#include "proto/pixel_format.h"

namespace ssimd {
namespace {

struct FormatPair {
  ChromaFormat chroma;
  v1::PixelFormat proto;
};

// One row a format, read in both directions.
constexpr FormatPair kFormats[] = {
    {ChromaFormat::k420, v1::PIXEL_FORMAT_420},
    {ChromaFormat::k422, v1::PIXEL_FORMAT_422},
    {ChromaFormat::k444, v1::PIXEL_FORMAT_444},
    {ChromaFormat::k400, v1::PIXEL_FORMAT_400},
};

}  // namespace

v1::PixelFormat PixelFormatToProto(ChromaFormat chroma) {
  for (const FormatPair& format : kFormats) {
    if (format.chroma == chroma) return format.proto;
  }
  return v1::PIXEL_FORMAT_UNSPECIFIED;
}

std::optional<ChromaFormat> PixelFormatFromProto(int pixel_format) {
  if (pixel_format == v1::PIXEL_FORMAT_UNSPECIFIED) return ChromaFormat::k420;
  for (const FormatPair& format : kFormats) {
    if (format.proto == pixel_format) return format.chroma;
  }
  return std::nullopt;
}

v1::Geometry GeometryToProto(const Geometry& g) {
  v1::Geometry geometry;
  geometry.set_width(g.width);
  geometry.set_height(g.height);
  geometry.set_bit_depth(g.bit_depth);
  geometry.set_pixel_format(PixelFormatToProto(g.chroma));
  return geometry;
}

}  // namespace ssimd
