#include "engine/media/device_picture.h"

#include <cstring>
#include <string>
#include <utility>

#include "absl/strings/str_format.h"
#include "engine/media/av_handles.h"
#include "engine/media/hw_frame_download.h"
#include "engine/media/pixel_formats.h"

extern "C" {
#include <libavutil/hwcontext.h>
#include <libavutil/pixdesc.h>
}

namespace ssimd {
namespace {

// One plane of the frame: the luma (plane 0) or the interleaved chroma (plane 1).
class DevicePicturePlane final : public DevicePlane {
 public:
  DevicePicturePlane(AvFramePtr frame, AVPixelFormat software, const DevicePlaneLayout& layout)
      : frame_(std::move(frame)), software_(software), layout_(layout) {}

  const DevicePlaneLayout& layout() const override { return layout_; }

  absl::Status CopyToHost(uint8_t* out) const override {
    if (layout_.interleaved_planes == 1) return DownloadHardwareLuma(*frame_, software_, out);
    AvFramePtr downloaded(av_frame_alloc());
    if (downloaded == nullptr) return absl::ResourceExhaustedError("out of memory for a picture");
    std::string chroma;
    if (absl::Status s = DownloadHardwareChroma(*frame_, software_, downloaded.get(), &chroma);
        !s.ok()) {
      return s;
    }
    if (chroma.size() != packed_bytes()) {
      return absl::InternalError(absl::StrFormat(
          "a picture's chroma came back as %d bytes where %d were expected", chroma.size(),
          packed_bytes()));
    }
    std::memcpy(out, chroma.data(), chroma.size());
    return absl::OkStatus();
  }

 private:
  const AvFramePtr frame_;
  const AVPixelFormat software_;
  const DevicePlaneLayout layout_;
};

// The format the frame's samples are stored in on the device.
absl::StatusOr<AVPixelFormat> StoredFormat(const AVFrame& frame) {
  if (frame.format != AV_PIX_FMT_CUDA || frame.hw_frames_ctx == nullptr) {
    return absl::InternalError(absl::StrFormat(
        "a %s picture is not one in CUDA memory",
        PixelFormatName(static_cast<AVPixelFormat>(frame.format))));
  }
  const auto* frames = reinterpret_cast<const AVHWFramesContext*>(frame.hw_frames_ctx->data);
  return frames->sw_format;
}

// Plane `plane` of `frame`, stored as `stored` (one sample per position, or
// `interleaved_planes` alternating).
absl::StatusOr<std::shared_ptr<const DevicePlane>> MakePlane(const AVFrame& frame,
                                                             AVPixelFormat software,
                                                             AVPixelFormat stored,
                                                             int device_index, int plane,
                                                             int interleaved_planes) {
  absl::StatusOr<int> shift = HardwareSampleShift(software, stored);
  if (!shift.ok()) return shift.status();
  AvFramePtr reference(av_frame_clone(&frame));
  if (reference == nullptr) return absl::ResourceExhaustedError("out of memory for a picture");
  const AVPixFmtDescriptor* d = av_pix_fmt_desc_get(software);
  DevicePlaneLayout layout;
  layout.device = device_index;
  layout.data = reference->data[plane];
  layout.pitch_bytes = static_cast<size_t>(reference->linesize[plane]);
  layout.width = plane == 0 ? reference->width : AV_CEIL_RSHIFT(reference->width, d->log2_chroma_w);
  layout.height =
      plane == 0 ? reference->height : AV_CEIL_RSHIFT(reference->height, d->log2_chroma_h);
  layout.bit_depth = d->comp[0].depth;
  layout.sample_shift = *shift;
  layout.interleaved_planes = interleaved_planes;
  return std::shared_ptr<const DevicePlane>(
      std::make_shared<DevicePicturePlane>(std::move(reference), software, layout));
}

}  // namespace

bool IsDeviceFrame(const AVFrame& frame) { return frame.hw_frames_ctx != nullptr; }

absl::StatusOr<std::shared_ptr<const DevicePlane>> MakeDevicePictureLuma(
    const AVFrame& frame, AVPixelFormat software, int device_index) {
  absl::StatusOr<AVPixelFormat> stored = StoredFormat(frame);
  if (!stored.ok()) return stored.status();
  return MakePlane(frame, software, *stored, device_index, 0, 1);
}

absl::StatusOr<std::shared_ptr<const DevicePlane>> MakeDevicePictureChroma(
    const AVFrame& frame, AVPixelFormat software, int device_index) {
  absl::StatusOr<AVPixelFormat> stored = StoredFormat(frame);
  if (!stored.ok()) return stored.status();
  absl::StatusOr<bool> interleaved = HardwareChromaInterleaved(software, *stored);
  if (!interleaved.ok()) return interleaved.status();
  if (!*interleaved) return std::shared_ptr<const DevicePlane>();
  return MakePlane(frame, software, *stored, device_index, 1, 2);
}

}  // namespace ssimd
