#include "engine/media/hw_decode_device.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "engine/media/av_handles.h"
#include "engine/media/nvdec_caps.h"
#include "engine/media/vaapi_caps.h"


namespace ssimd {

std::string DecodeFallbackLabel(DecodeFallback fallback) {
  switch (fallback) {
    case DecodeFallback::kNone: return "none";
    case DecodeFallback::kNoDevice: return "no_device";
    case DecodeFallback::kCodec: return "codec";
    case DecodeFallback::kFormat: return "format";
    case DecodeFallback::kSessionsBusy: return "sessions_busy";
    case DecodeFallback::kEngineLimits: return "engine_limits";
    case DecodeFallback::kEngineRefused: return "engine_refused";
  }
  return "none";
}

absl::StatusOr<std::shared_ptr<HwDecodeDevice>> HwDecodeDevice::Open(
    const HwDecodeOptions& options) {
  std::shared_ptr<HwDecodeDevice> device(new HwDecodeDevice());
  if (options.api == "cuda") {
    device->type_ = AV_HWDEVICE_TYPE_CUDA;
    device->device_format_ = AV_PIX_FMT_CUDA;
    device->backend_name_ = "nvdec";
  } else if (options.api == "vaapi") {
    device->type_ = AV_HWDEVICE_TYPE_VAAPI;
    device->device_format_ = AV_PIX_FMT_VAAPI;
    device->backend_name_ = "vaapi";
  } else {
    return absl::InvalidArgumentError(absl::StrFormat(
        "hardware decoding API \"%s\": expected cuda (NVDEC) or vaapi (AMD VCN, Intel)",
        options.api));
  }
  if (options.max_sessions < 1) {
    return absl::InvalidArgumentError("hardware decoder sessions: expected 1 or more");
  }
  device->api_ = options.api;
  device->max_sessions_ = options.max_sessions;
  // NVDEC decodes in the device's primary context, which the GPU scorer's runtime uses too, so
  // that pictures can stay where they were decoded (docs/adr/0083); where that context cannot be
  // had, in a context of libavcodec's own, with every picture brought to the host.
  int rc = 0;
  if (device->type_ == AV_HWDEVICE_TYPE_CUDA) {
    absl::StatusOr<std::unique_ptr<CudaPictureSync>> sync = CudaPictureSync::Open(options.device);
    if (sync.ok()) {
      device->picture_sync_ = *std::move(sync);
      device->context_ = av_buffer_ref(device->picture_sync_->context());
      if (device->context_ == nullptr) return absl::ResourceExhaustedError("out of memory");
    } else {
      device->pictures_stay_on_host_ = std::string(sync.status().message());
    }
  } else {
    device->pictures_stay_on_host_ =
        "VA-API surfaces are not shared with the GPU scorer (docs/adr/0083)";
  }
  if (device->context_ == nullptr) {
    rc = av_hwdevice_ctx_create(&device->context_, device->type_,
                                options.device.empty() ? nullptr : options.device.c_str(),
                                nullptr, 0);
  }
  if (rc < 0) {
    device->context_ = nullptr;
    return absl::UnavailableError(absl::StrFormat(
        "cannot open %s device%s for decoding: %s (FFmpeg's libavcodec could not create the "
        "device; is the driver installed and the device visible?)",
        options.api, options.device.empty() ? "" : " " + options.device, AvErrorText(rc)));
  }
  if (device->type_ == AV_HWDEVICE_TYPE_CUDA) {
    device->caps_ = ProbeNvdecCaps(device->context_);
    absl::StatusOr<std::unique_ptr<NvdecUtilization>> utilization =
        NvdecUtilization::Open(device->context_);
    if (utilization.ok()) {
      device->utilization_ = *std::move(utilization);
    } else {
      device->utilization_unavailable_ = utilization.status();
    }
  } else {
    device->caps_ = ProbeVaapiCaps(device->context_);
    device->utilization_unavailable_ =
        absl::UnavailableError("VA-API does not report its engines' utilization");
  }
  return device;
}

HwDecodeDevice::~HwDecodeDevice() {
  // Before picture_sync_, which holds the primary context libavcodec's context was given.
  av_buffer_unref(&context_);
}

HwDecodeDevice::Session::~Session() { device_->in_use_.fetch_sub(1); }

std::unique_ptr<HwDecodeDevice::Session> HwDecodeDevice::TryAcquire() {
  int now = in_use_.load();
  while (now < max_sessions_) {
    if (in_use_.compare_exchange_weak(now, now + 1)) return std::make_unique<Session>(this);
  }
  return nullptr;
}

absl::StatusOr<int> HwDecodeDevice::PictureDevice() const {
  if (picture_sync_ == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat(
        backend_name_, " pictures are brought to the host: ", pictures_stay_on_host_));
  }
  return picture_sync_->device_index();
}

absl::Status HwDecodeDevice::CopyOut(const AVFrame& decoded, AVFrame* out) const {
  if (picture_sync_ == nullptr) return PictureDevice().status();
  return picture_sync_->CopyOut(decoded, out);
}

absl::StatusOr<double> HwDecodeDevice::EngineUtilization() const {
  if (utilization_ == nullptr) return utilization_unavailable_;
  return utilization_->Sample();
}

bool HwDecodeDevice::DecodesCodec(const AVCodec& codec) const {
  for (int i = 0;; ++i) {
    const AVCodecHWConfig* config = avcodec_get_hw_config(&codec, i);
    if (config == nullptr) return false;
    if ((config->methods & AV_CODEC_HW_CONFIG_METHOD_HW_DEVICE_CTX) != 0 &&
        config->device_type == type_) {
      return true;
    }
  }
}

std::vector<std::string> HwDecodeDevice::Codecs() const {
  std::vector<std::string> names;
  void* iterator = nullptr;
  while (const AVCodec* codec = av_codec_iterate(&iterator)) {
    // The native decoders only: the hwaccels hang off them (h264, hevc, vp9, av1, ...).
    if (!av_codec_is_decoder(codec) || codec->type != AVMEDIA_TYPE_VIDEO) continue;
    if ((codec->capabilities & AV_CODEC_CAP_HARDWARE) != 0) continue;  // h264_cuvid and the like
    if (DecodesCodec(*codec)) names.push_back(codec->name);
  }
  return names;
}

}  // namespace ssimd
