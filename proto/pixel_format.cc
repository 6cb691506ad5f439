#include "proto/pixel_format.h"

namespace ssimd {

v1::PixelFormat PixelFormatToProto(ChromaFormat chroma) {
  switch (chroma) {
    case ChromaFormat::k420:
      return v1::PIXEL_FORMAT_420;
    case ChromaFormat::k422:
      return v1::PIXEL_FORMAT_422;
    case ChromaFormat::k444:
      return v1::PIXEL_FORMAT_444;
    case ChromaFormat::k400:
      return v1::PIXEL_FORMAT_400;
  }
  return v1::PIXEL_FORMAT_UNSPECIFIED;
}

std::optional<ChromaFormat> PixelFormatFromProto(int pixel_format) {
  switch (pixel_format) {
    case v1::PIXEL_FORMAT_UNSPECIFIED:
    case v1::PIXEL_FORMAT_420:
      return ChromaFormat::k420;
    case v1::PIXEL_FORMAT_422:
      return ChromaFormat::k422;
    case v1::PIXEL_FORMAT_444:
      return ChromaFormat::k444;
    case v1::PIXEL_FORMAT_400:
      return ChromaFormat::k400;
    default:
      return std::nullopt;
  }
}

}  // namespace ssimd
