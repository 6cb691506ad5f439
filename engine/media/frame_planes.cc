#include "engine/media/frame_planes.h"

#include <cstring>

extern "C" {
#include <libavutil/pixdesc.h>
}

namespace ssimd {
namespace {

// Appends component `c` of `frame` (0 luma, 1 Cb, 2 Cr, 3 alpha), rows without padding.
void AppendComponent(const AVFrame& frame, int c, std::string* out) {
  const AVPixFmtDescriptor* desc = av_pix_fmt_desc_get(static_cast<AVPixelFormat>(frame.format));
  const bool chroma = c == 1 || c == 2;
  const int width = chroma ? AV_CEIL_RSHIFT(frame.width, desc->log2_chroma_w) : frame.width;
  const int height = chroma ? AV_CEIL_RSHIFT(frame.height, desc->log2_chroma_h) : frame.height;
  const int plane = desc->comp[c].plane;
  const size_t row_bytes = static_cast<size_t>(width) * desc->comp[c].step;
  const size_t start = out->size();
  out->resize(start + row_bytes * height);
  char* dst = out->data() + start;
  for (int y = 0; y < height; ++y) {
    std::memcpy(dst + row_bytes * y,
                frame.data[plane] + static_cast<ptrdiff_t>(y) * frame.linesize[plane], row_bytes);
  }
}

int Components(const AVFrame& frame) {
  return av_pix_fmt_desc_get(static_cast<AVPixelFormat>(frame.format))->nb_components;
}

}  // namespace

void CopyLuma(const AVFrame& frame, std::string* luma) {
  luma->clear();
  AppendComponent(frame, 0, luma);
}

void CopyChroma(const AVFrame& frame, std::string* chroma) {
  chroma->clear();
  if (Components(frame) < 3) return;
  AppendComponent(frame, 1, chroma);
  AppendComponent(frame, 2, chroma);
}

void CopyLumaAndChroma(const AVFrame& frame, std::string* planes) {
  planes->clear();
  AppendComponent(frame, 0, planes);
  if (Components(frame) < 3) return;
  AppendComponent(frame, 1, planes);
  AppendComponent(frame, 2, planes);
}

std::string PackedPicture(const AVFrame& frame) {
  std::string out;
  for (int c = 0; c < Components(frame); ++c) AppendComponent(frame, c, &out);
  return out;
}

}  // namespace ssimd
