#include "engine/media/hw_frame_download.h"

#include <cstdint>
#include <cstring>

#include "absl/strings/str_format.h"
#include "engine/media/av_handles.h"
#include "engine/media/pixel_formats.h"
#include "engine/picture.h"
#include "kernels/luma_pack_math.h"

extern "C" {
#include <libavutil/pixdesc.h>
}

namespace ssimd {
namespace {

struct Layout {
  AVPixelFormat software;
  AVPixelFormat downloaded;
  int shift;          // the engine's samples sit this many bits higher
  bool interleaved;   // chroma as UVUV... in plane 1
};

constexpr Layout kLayouts[] = {
    {AV_PIX_FMT_YUV420P, AV_PIX_FMT_NV12, 0, true},
    {AV_PIX_FMT_YUV420P10LE, AV_PIX_FMT_P010LE, 6, true},
    {AV_PIX_FMT_YUV420P12LE, AV_PIX_FMT_P016LE, 4, true},
    {AV_PIX_FMT_YUV444P, AV_PIX_FMT_YUV444P, 0, false},
    {AV_PIX_FMT_YUV444P10LE, AV_PIX_FMT_YUV444P16LE, 6, false},
    {AV_PIX_FMT_YUV444P12LE, AV_PIX_FMT_YUV444P16LE, 4, false},
};

const Layout* FindLayout(AVPixelFormat software, AVPixelFormat downloaded) {
  for (const Layout& l : kLayouts) {
    if (l.software == software && (downloaded == AV_PIX_FMT_NONE || l.downloaded == downloaded)) {
      return &l;
    }
  }
  return nullptr;
}

// One row of `count` samples of `depth` bits, each shifted down by `shift`.
void CopyRow(const uint8_t* from, uint8_t* to, int count, int depth, int shift) {
  if (depth == 8) {
    std::memcpy(to, from, count);
    return;
  }
  for (int i = 0; i < count; ++i) {
    StoreSample(to, i, depth, SoftwareSampleOf(LoadSample(from, i, depth), shift));
  }
}

// Splits a row of interleaved pairs into two rows.
void SplitRow(const uint8_t* from, uint8_t* u, uint8_t* v, int pairs, int depth, int shift) {
  for (int i = 0; i < pairs; ++i) {
    StoreSample(u, i, depth, SoftwareSampleOf(LoadSample(from, 2 * i, depth), shift));
    StoreSample(v, i, depth, SoftwareSampleOf(LoadSample(from, 2 * i + 1, depth), shift));
  }
}

// Chroma row `y` of `downloaded` (in `layout`) as the software decoder's Cb and Cr rows of
// `width` samples, into `u` and `v`.
void ChromaRow(const AVFrame& downloaded, const Layout& layout, int y, int width, int depth,
               uint8_t* u, uint8_t* v) {
  const uint8_t* row = downloaded.data[1] + static_cast<size_t>(y) * downloaded.linesize[1];
  if (layout.interleaved) {
    SplitRow(row, u, v, width, depth, layout.shift);
    return;
  }
  CopyRow(row, u, width, depth, layout.shift);
  CopyRow(downloaded.data[2] + static_cast<size_t>(y) * downloaded.linesize[2], v, width, depth,
          layout.shift);
}

absl::Status UnexpectedPair(AVPixelFormat stored, AVPixelFormat software) {
  return absl::InternalError(absl::StrFormat(
      "a hardware decoder returned %s for a stream that decodes to %s in software",
      PixelFormatName(stored), PixelFormatName(software)));
}

// Copies the device's picture into `downloaded` (its previous buffers dropped).
absl::Status Download(const AVFrame& on_device, AVFrame* downloaded) {
  av_frame_unref(downloaded);
  const int rc = av_hwframe_transfer_data(downloaded, &on_device, 0);
  if (rc < 0) {
    return absl::UnavailableError(absl::StrFormat(
        "copying a picture from the GPU's decoder to the host failed (%s)", AvErrorText(rc)));
  }
  // The transfer may round the size up to the engine's surface.
  downloaded->width = on_device.width;
  downloaded->height = on_device.height;
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<int> HardwareSampleShift(AVPixelFormat software, AVPixelFormat stored) {
  const Layout* layout = FindLayout(software, stored);
  if (layout == nullptr) return UnexpectedPair(stored, software);
  return layout->shift;
}

absl::StatusOr<bool> HardwareChromaInterleaved(AVPixelFormat software, AVPixelFormat stored) {
  const Layout* layout = FindLayout(software, stored);
  if (layout == nullptr) return UnexpectedPair(stored, software);
  return layout->interleaved;
}

absl::Status DownloadHardwarePicture(const AVFrame& on_device, AVPixelFormat software,
                                     AVFrame* downloaded, AVFrame* out) {
  if (absl::Status s = Download(on_device, downloaded); !s.ok()) return s;
  return ConvertHardwareOutput(*downloaded, software, out);
}

absl::Status DownloadHardwareChroma(const AVFrame& on_device, AVPixelFormat software,
                                    AVFrame* downloaded, std::string* chroma) {
  if (absl::Status s = Download(on_device, downloaded); !s.ok()) return s;
  return ConvertHardwareChroma(*downloaded, software, chroma);
}

absl::Status DownloadHardwareLuma(const AVFrame& on_device, AVPixelFormat software,
                                  uint8_t* out) {
  AvFramePtr downloaded(av_frame_alloc());
  if (downloaded == nullptr) return absl::ResourceExhaustedError("out of memory for a picture");
  if (absl::Status s = Download(on_device, downloaded.get()); !s.ok()) return s;
  const Layout* layout =
      FindLayout(software, static_cast<AVPixelFormat>(downloaded->format));
  if (layout == nullptr) {
    return UnexpectedPair(static_cast<AVPixelFormat>(downloaded->format), software);
  }
  const int depth = av_pix_fmt_desc_get(software)->comp[0].depth;
  const size_t row_bytes = static_cast<size_t>(on_device.width) * BytesPerSample(depth);
  for (int y = 0; y < on_device.height; ++y) {
    CopyRow(downloaded->data[0] + static_cast<size_t>(y) * downloaded->linesize[0],
            out + static_cast<size_t>(y) * row_bytes, on_device.width, depth, layout->shift);
  }
  return absl::OkStatus();
}

bool HardwareOutputConvertible(AVPixelFormat software) {
  return FindLayout(software, AV_PIX_FMT_NONE) != nullptr;
}

absl::Status ConvertHardwareChroma(const AVFrame& downloaded, AVPixelFormat software,
                                   std::string* chroma) {
  const Layout* layout =
      FindLayout(software, static_cast<AVPixelFormat>(downloaded.format));
  if (layout == nullptr) {
    return UnexpectedPair(static_cast<AVPixelFormat>(downloaded.format), software);
  }
  const AVPixFmtDescriptor* d = av_pix_fmt_desc_get(software);
  const int depth = d->comp[0].depth;
  const int cw = AV_CEIL_RSHIFT(downloaded.width, d->log2_chroma_w);
  const int ch = AV_CEIL_RSHIFT(downloaded.height, d->log2_chroma_h);
  const size_t row_bytes = static_cast<size_t>(cw) * BytesPerSample(depth);
  chroma->resize(2 * row_bytes * ch);
  uint8_t* u = reinterpret_cast<uint8_t*>(chroma->data());
  uint8_t* v = u + row_bytes * ch;
  for (int y = 0; y < ch; ++y, u += row_bytes, v += row_bytes) {
    ChromaRow(downloaded, *layout, y, cw, depth, u, v);
  }
  return absl::OkStatus();
}

absl::Status ConvertHardwareOutput(const AVFrame& downloaded, AVPixelFormat software,
                                   AVFrame* out) {
  const Layout* layout =
      FindLayout(software, static_cast<AVPixelFormat>(downloaded.format));
  if (layout == nullptr) {
    return UnexpectedPair(static_cast<AVPixelFormat>(downloaded.format), software);
  }
  // Fresh buffers also when someone still holds the last picture's (a frame queued elsewhere).
  if (out->buf[0] == nullptr || out->width != downloaded.width ||
      out->height != downloaded.height || out->format != software || !av_frame_is_writable(out)) {
    av_frame_unref(out);
    out->width = downloaded.width;
    out->height = downloaded.height;
    out->format = software;
    if (av_frame_get_buffer(out, 0) < 0) {
      return absl::ResourceExhaustedError("out of memory for a decoded picture");
    }
  }
  if (av_frame_copy_props(out, &downloaded) < 0) {
    return absl::ResourceExhaustedError("out of memory for a decoded picture");
  }
  const AVPixFmtDescriptor* d = av_pix_fmt_desc_get(software);
  const int depth = d->comp[0].depth;
  const int w = downloaded.width;
  const int h = downloaded.height;
  for (int y = 0; y < h; ++y) {
    CopyRow(downloaded.data[0] + static_cast<size_t>(y) * downloaded.linesize[0],
            out->data[0] + static_cast<size_t>(y) * out->linesize[0], w, depth, layout->shift);
  }
  const int cw = AV_CEIL_RSHIFT(w, d->log2_chroma_w);
  const int ch = AV_CEIL_RSHIFT(h, d->log2_chroma_h);
  for (int y = 0; y < ch; ++y) {
    ChromaRow(downloaded, *layout, y, cw, depth,
              out->data[1] + static_cast<size_t>(y) * out->linesize[1],
              out->data[2] + static_cast<size_t>(y) * out->linesize[2]);
  }
  return absl::OkStatus();
}

}  // namespace ssimd
