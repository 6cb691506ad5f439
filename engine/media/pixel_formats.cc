#include "engine/media/pixel_formats.h"

#include "absl/strings/str_format.h"

extern "C" {
#include <libavutil/pixdesc.h>
}

namespace ssimd {

absl::StatusOr<Geometry> GeometryForPixelFormat(AVPixelFormat format, int width, int height) {
  const AVPixFmtDescriptor* desc = av_pix_fmt_desc_get(format);
  const auto refuse = [&] {
    return absl::InvalidArgumentError(absl::StrFormat(
        "pixel format %s is not supported; expected planar YUV 4:2:0, 4:2:2, 4:4:4 or grey at 8, "
        "10, 12 or 16 bits (e.g. yuv420p, yuv420p10le)",
        PixelFormatName(format)));
  };
  if (desc == nullptr) return refuse();
  const uint64_t unsupported = AV_PIX_FMT_FLAG_BE | AV_PIX_FMT_FLAG_PAL | AV_PIX_FMT_FLAG_HWACCEL |
                               AV_PIX_FMT_FLAG_RGB | AV_PIX_FMT_FLAG_FLOAT |
                               AV_PIX_FMT_FLAG_BAYER | AV_PIX_FMT_FLAG_ALPHA;
  if ((desc->flags & unsupported) != 0) return refuse();
  // Every component in its own plane, samples at the bottom of their 1 or 2 bytes.
  if (!(desc->flags & AV_PIX_FMT_FLAG_PLANAR) && desc->nb_components != 1) return refuse();
  for (int c = 0; c < desc->nb_components; ++c) {
    if (desc->comp[c].plane != c || desc->comp[c].shift != 0) return refuse();
  }
  Geometry geometry;
  geometry.width = width;
  geometry.height = height;
  geometry.bit_depth = desc->comp[0].depth;
  if (geometry.bit_depth != 8 && geometry.bit_depth != 10 && geometry.bit_depth != 12 &&
      geometry.bit_depth != 16) {
    return refuse();
  }
  if (desc->comp[0].step != (geometry.bit_depth > 8 ? 2 : 1)) return refuse();
  if (desc->nb_components == 1) {
    geometry.chroma = ChromaFormat::k400;
  } else if (desc->nb_components != 3) {
    return refuse();
  } else if (desc->log2_chroma_w == 1 && desc->log2_chroma_h == 1) {
    geometry.chroma = ChromaFormat::k420;
  } else if (desc->log2_chroma_w == 1 && desc->log2_chroma_h == 0) {
    geometry.chroma = ChromaFormat::k422;
  } else if (desc->log2_chroma_w == 0 && desc->log2_chroma_h == 0) {
    geometry.chroma = ChromaFormat::k444;
  } else {
    return refuse();
  }
  return geometry;
}

AVPixelFormat PixelFormatForGeometry(const Geometry& geometry) {
  switch (geometry.chroma) {
    case ChromaFormat::k400:
      switch (geometry.bit_depth) {
        case 8: return AV_PIX_FMT_GRAY8;
        case 10: return AV_PIX_FMT_GRAY10LE;
        case 12: return AV_PIX_FMT_GRAY12LE;
        default: return AV_PIX_FMT_GRAY16LE;
      }
    case ChromaFormat::k420:
      switch (geometry.bit_depth) {
        case 8: return AV_PIX_FMT_YUV420P;
        case 10: return AV_PIX_FMT_YUV420P10LE;
        case 12: return AV_PIX_FMT_YUV420P12LE;
        default: return AV_PIX_FMT_YUV420P16LE;
      }
    case ChromaFormat::k422:
      switch (geometry.bit_depth) {
        case 8: return AV_PIX_FMT_YUV422P;
        case 10: return AV_PIX_FMT_YUV422P10LE;
        case 12: return AV_PIX_FMT_YUV422P12LE;
        default: return AV_PIX_FMT_YUV422P16LE;
      }
    case ChromaFormat::k444:
      switch (geometry.bit_depth) {
        case 8: return AV_PIX_FMT_YUV444P;
        case 10: return AV_PIX_FMT_YUV444P10LE;
        case 12: return AV_PIX_FMT_YUV444P12LE;
        default: return AV_PIX_FMT_YUV444P16LE;
      }
  }
  return AV_PIX_FMT_NONE;
}

std::string PixelFormatName(AVPixelFormat format) {
  const char* name = av_get_pix_fmt_name(format);
  return name != nullptr ? name : "unknown";
}

}  // namespace ssimd
