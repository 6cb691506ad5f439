// A video decoding engine of a GPU, reached through libavcodec's hardware acceleration: NVDEC
// through its `cuda` hwaccel, AMD's VCN (and Intel's) through `vaapi`. One device context per
// server and device, shared by every decoder, with a bound on the decoder sessions open on it at
// once (docs/adr/0081). Pictures decoded there are brought back to the host in the software
// decoder's own pixel format (engine/media/video_decoder.h), so everything after decoding is the
// same whichever engine decoded, or, on NVDEC, left in device memory for the GPU scorer
// (docs/adr/0083).
#ifndef SSIMD_ENGINE_MEDIA_HW_DECODE_DEVICE_H_
#define SSIMD_ENGINE_MEDIA_HW_DECODE_DEVICE_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "engine/media/cuda_picture_sync.h"
#include "engine/media/decode_caps.h"
#include "engine/media/nvdec_utilization.h"

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavutil/buffer.h>
#include <libavutil/hwcontext.h>
}

namespace ssimd {

// Why a file is decoded on the CPU although hardware decoding was asked for; a metric label each.
enum class DecodeFallback {
  kNone,
  kNoDevice,        // the device could not be opened (no GPU, no driver): "no_device"
  kCodec,           // the codec has no hardware decoder through this API: "codec"
  kFormat,          // a depth or chroma layout the engine or ssimd's read-back does not take: "format"
  kSessionsBusy,    // every decoder session of the device was taken: "sessions_busy"
  kEngineLimits,    // the stream is outside the engines' decode table (codec, chroma layout,
                    // depth, size), known before decoding: "engine_limits"
  kEngineRefused,   // the engine refused the stream when decoding started (size, profile):
                    // "engine_refused"
};
std::string DecodeFallbackLabel(DecodeFallback fallback);

struct HwDecodeOptions {
  std::string api;        // "cuda" or "vaapi"
  std::string device;     // "" for the default; a GPU index ("0") or a DRM node for vaapi
  int max_sessions = 16;  // decoders open on the device at once
};

class HwDecodeDevice {
 public:
  // UNAVAILABLE naming the API and the reason when the device cannot be opened;
  // INVALID_ARGUMENT for an unknown API or a session count under 1.
  static absl::StatusOr<std::shared_ptr<HwDecodeDevice>> Open(const HwDecodeOptions& options);
  ~HwDecodeDevice();
  HwDecodeDevice(const HwDecodeDevice&) = delete;
  HwDecodeDevice& operator=(const HwDecodeDevice&) = delete;

  // A decoder session, released when destroyed; null when every session is taken.
  class Session {
   public:
    explicit Session(HwDecodeDevice* device) : device_(device) {}
    ~Session();
    Session(const Session&) = delete;
    Session& operator=(const Session&) = delete;

   private:
    HwDecodeDevice* device_;
  };
  std::unique_ptr<Session> TryAcquire();

  const std::string& api() const { return api_; }  // "cuda", "vaapi"
  // "nvdec" or "vaapi": the decode backend's name in results and metrics.
  const std::string& backend_name() const { return backend_name_; }
  AVHWDeviceType type() const { return type_; }
  AVBufferRef* context() const { return context_; }
  // The picture format of frames that stay on the device (AV_PIX_FMT_CUDA, AV_PIX_FMT_VAAPI).
  AVPixelFormat device_format() const { return device_format_; }
  int max_sessions() const { return max_sessions_; }
  int sessions_in_use() const { return in_use_.load(); }
  int64_t frames_decoded() const { return frames_decoded_.load(); }
  void CountFrame() { frames_decoded_.fetch_add(1, std::memory_order_relaxed); }

  // Whether libavcodec has a hardware decoder for `codec` through this API.
  bool DecodesCodec(const AVCodec& codec) const;
  // FFmpeg's names of the codecs this API decodes (the engine itself may refuse some streams of
  // them: sizes and profiles are only known when decoding starts).
  std::vector<std::string> Codecs() const;
  // What the engines decode, read from the driver when the device opened (decode_caps.h).
  const DecodeCaps& caps() const { return caps_; }
  // Tests: a table of the test's own, to see a stream refused by its limits. Before any decoder
  // uses the device.
  void SetCapsForTesting(DecodeCaps caps) { caps_ = std::move(caps); }
  // How busy the engines were over the driver's last sampling period, 0 to 1 (NVDEC through
  // NVML); UNAVAILABLE saying why where it cannot be read (VA-API has no such query).
  absl::StatusOr<double> EngineUtilization() const;

  // The GPU (the GPU backend's index) whose memory holds this device's decoded pictures, where
  // they can be scored without a trip through the host (NVDEC in the primary CUDA context);
  // FAILED_PRECONDITION saying why not (VA-API, or the driver could not be asked).
  absl::StatusOr<int> PictureDevice() const;
  // For a device whose pictures can stay (PictureDevice): `decoded`, the engine's output, copied
  // into a frame of its own in device memory (`out`), complete, the engine's surface free again
  // once `decoded` is released (CudaPictureSync::CopyOut).
  absl::Status CopyOut(const AVFrame& decoded, AVFrame* out) const;

 private:
  HwDecodeDevice() = default;

  std::string api_;
  std::string backend_name_;
  AVHWDeviceType type_ = AV_HWDEVICE_TYPE_NONE;
  AVPixelFormat device_format_ = AV_PIX_FMT_NONE;
  AVBufferRef* context_ = nullptr;
  int max_sessions_ = 0;
  DecodeCaps caps_;
  std::unique_ptr<NvdecUtilization> utilization_;
  std::unique_ptr<CudaPictureSync> picture_sync_;
  std::string pictures_stay_on_host_;  // why picture_sync_ is null
  absl::Status utilization_unavailable_;
  std::atomic<int> in_use_{0};
  std::atomic<int64_t> frames_decoded_{0};
};

}  // namespace ssimd

#endif  // SSIMD_ENGINE_MEDIA_HW_DECODE_DEVICE_H_
