#include "engine/media/frame_planes.h"

#include <cstring>

extern "C" {
#include <libavutil/pixdesc.h>
}

namespace ssimd {
namespace {

void AppendPlane(const AVFrame& frame, int plane, int width, int height, int bytes_per_sample,
                 std::string* out) {
  const size_t row_bytes = static_cast<size_t>(width) * bytes_per_sample;
  const size_t start = out->size();
  out->resize(start + row_bytes * height);
  char* dst = out->data() + start;
  for (int y = 0; y < height; ++y) {
    std::memcpy(dst + row_bytes * y,
                frame.data[plane] + static_cast<ptrdiff_t>(y) * frame.linesize[plane], row_bytes);
  }
}

}  // namespace

void CopyLuma(const AVFrame& frame, std::string* luma) {
  const AVPixFmtDescriptor* desc = av_pix_fmt_desc_get(static_cast<AVPixelFormat>(frame.format));
  luma->clear();
  AppendPlane(frame, 0, frame.width, frame.height, desc->comp[0].step, luma);
}

std::string PackedPicture(const AVFrame& frame) {
  const AVPixFmtDescriptor* desc = av_pix_fmt_desc_get(static_cast<AVPixelFormat>(frame.format));
  std::string out;
  for (int c = 0; c < desc->nb_components; ++c) {
    const bool chroma = c == 1 || c == 2;
    const int width = chroma ? AV_CEIL_RSHIFT(frame.width, desc->log2_chroma_w) : frame.width;
    const int height = chroma ? AV_CEIL_RSHIFT(frame.height, desc->log2_chroma_h) : frame.height;
    AppendPlane(frame, desc->comp[c].plane, width, height, desc->comp[c].step, &out);
  }
  return out;
}

}  // namespace ssimd
