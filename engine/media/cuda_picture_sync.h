// What it takes to hand NVDEC's pictures to the GPU scorer where they lie (docs/adr/0083). The
// decoding runs in the device's primary CUDA context, the one the scorer's runtime uses, so the
// pictures' memory is the scorer's to read: the context is retained here and given to libavcodec
// as its device context (libavcodec's own primary-context option would insist on scheduling
// flags the runtime may already have set otherwise). libavcodec hands out each picture as the
// engine's own output surface, mapped (its post-processing queued on the context's stream), and
// an engine has only a few such surfaces: a picture held while later ones decode would starve
// the decoder. So a picture that is to stay on the device is copied out of the surface into a
// frame of libavcodec's frame pool on the same stream, the stream is waited for, and the surface
// goes back at once. The driver is loaded at run time.
#ifndef SSIMD_ENGINE_MEDIA_CUDA_PICTURE_SYNC_H_
#define SSIMD_ENGINE_MEDIA_CUDA_PICTURE_SYNC_H_

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

extern "C" {
#include <libavutil/buffer.h>
#include <libavutil/frame.h>
}

namespace ssimd {

class CudaPictureSync {
 public:
  // CUDA device `device` ("" for 0, else its index) with its primary context as a libavcodec
  // device context; UNAVAILABLE saying why (no driver, no such device, libavcodec refused).
  static absl::StatusOr<std::unique_ptr<CudaPictureSync>> Open(const std::string& device);
  ~CudaPictureSync();
  CudaPictureSync(const CudaPictureSync&) = delete;
  CudaPictureSync& operator=(const CudaPictureSync&) = delete;

  // libavcodec's device context (AV_HWDEVICE_TYPE_CUDA); take a reference to keep it.
  AVBufferRef* context() const { return context_; }
  // The CUDA device index (the GPU backend's index on NVIDIA).
  int device_index() const { return device_index_; }
  // Copies `decoded` (a CUDA frame, possibly the engine's mapped surface) into a new frame of
  // its frames context's pool, `out`, every plane, complete when this returns. UNAVAILABLE or
  // RESOURCE_EXHAUSTED saying why.
  absl::Status CopyOut(const AVFrame& decoded, AVFrame* out) const;

 private:
  struct Driver;
  explicit CudaPictureSync(std::unique_ptr<Driver> driver);
  std::unique_ptr<Driver> driver_;
  AVBufferRef* context_ = nullptr;
  int device_index_ = 0;
};

}  // namespace ssimd

#endif  // SSIMD_ENGINE_MEDIA_CUDA_PICTURE_SYNC_H_
