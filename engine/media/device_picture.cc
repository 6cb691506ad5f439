#include "engine/media/device_picture.h"

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

class DevicePictureLuma final : public DevicePlane {
 public:
  DevicePictureLuma(AvFramePtr frame, AVPixelFormat software, const DevicePlaneLayout& layout)
      : frame_(std::move(frame)), software_(software), layout_(layout) {}

  const DevicePlaneLayout& layout() const override { return layout_; }

  absl::Status CopyToHost(uint8_t* out) const override {
    return DownloadHardwareLuma(*frame_, software_, out);
  }

 private:
  const AvFramePtr frame_;
  const AVPixelFormat software_;
  const DevicePlaneLayout layout_;
};

}  // namespace

bool IsDeviceFrame(const AVFrame& frame) { return frame.hw_frames_ctx != nullptr; }

absl::StatusOr<std::shared_ptr<const DevicePlane>> MakeDevicePictureLuma(
    const AVFrame& frame, AVPixelFormat software, int device_index) {
  if (frame.format != AV_PIX_FMT_CUDA || frame.hw_frames_ctx == nullptr) {
    return absl::InternalError(absl::StrFormat(
        "a %s picture is not one in CUDA memory",
        PixelFormatName(static_cast<AVPixelFormat>(frame.format))));
  }
  const auto* frames = reinterpret_cast<const AVHWFramesContext*>(frame.hw_frames_ctx->data);
  absl::StatusOr<int> shift = HardwareSampleShift(software, frames->sw_format);
  if (!shift.ok()) return shift.status();
  AvFramePtr reference(av_frame_clone(&frame));
  if (reference == nullptr) return absl::ResourceExhaustedError("out of memory for a picture");
  DevicePlaneLayout layout;
  layout.device = device_index;
  layout.data = reference->data[0];
  layout.pitch_bytes = static_cast<size_t>(reference->linesize[0]);
  layout.width = reference->width;
  layout.height = reference->height;
  layout.bit_depth = av_pix_fmt_desc_get(software)->comp[0].depth;
  layout.sample_shift = *shift;
  return std::shared_ptr<const DevicePlane>(
      std::make_shared<DevicePictureLuma>(std::move(reference), software, layout));
}

}  // namespace ssimd
