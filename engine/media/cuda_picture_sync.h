// What it takes to hand NVDEC's pictures to the GPU scorer where they lie (docs/adr/0083). The
// scorer's runtime uses the device's primary CUDA context, so pictures must end up in memory of
// that context; it is retained here through the driver (loaded at run time) and given to
// libavcodec as the device's context (libavcodec's own primary-context option would insist on
// scheduling flags the runtime may already have set otherwise).
//
// NVDEC serialises the decoders of one CUDA context: several decoders of one context decode no
// faster than one, while decoders of different contexts run side by side
// (bench/results/2026-12-05f-nvdec-decoder-streams). So decoders are spread over a few decoding
// contexts of their own (one per engine by default), each decoder with a stream of its own, and
// a picture that is to stay on the device is copied, every plane, out of the engine's output
// surface into a frame of a pool in the primary context (a peer copy between the two contexts,
// at device bandwidth) on the decoder's stream, behind the engine's output; the stream is waited
// for and the surface goes back at once (an engine has only a few such surfaces: a picture held
// while later ones decode would starve the decoder).
#ifndef SSIMD_ENGINE_MEDIA_CUDA_PICTURE_SYNC_H_
#define SSIMD_ENGINE_MEDIA_CUDA_PICTURE_SYNC_H_

#include <map>
#include <memory>
#include <string>
#include <tuple>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"

extern "C" {
#include <libavutil/buffer.h>
#include <libavutil/frame.h>
#include <libavutil/hwcontext.h>
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

  // libavcodec's device context of the primary context (AV_HWDEVICE_TYPE_CUDA); take a reference
  // to keep it.
  AVBufferRef* context() const { return context_; }
  // A new device context for one decoder (the caller owns the reference): decoding context
  // `slot` (made the first time it is asked for; a negative slot, or a driver without copies
  // between contexts, means the primary context) with a non-blocking stream of its own,
  // destroyed with the device context. UNAVAILABLE saying why (no context or stream could be
  // made, libavcodec refused).
  absl::StatusOr<AVBufferRef*> NewDecoderContext(int slot) const;
  // The CUDA device index (the GPU backend's index on NVIDIA).
  int device_index() const { return device_index_; }
  // Copies `decoded` (a CUDA frame of one of this device's contexts, possibly the engine's
  // mapped surface) into `out`, a new frame of a pool in the primary context, every plane, on
  // the stream of the frame's device context (behind the engine's output), complete when this
  // returns. UNAVAILABLE or RESOURCE_EXHAUSTED saying why.
  absl::Status CopyOut(const AVFrame& decoded, AVFrame* out) const;

 private:
  struct Driver;
  struct DecoderStream;
  explicit CudaPictureSync(std::shared_ptr<Driver> driver);
  // The pool of primary-context frames that pictures shaped like `frames` are copied into.
  absl::StatusOr<AVBufferRef*> PoolFor(const AVHWFramesContext& frames) const;
  // Free callbacks of the device contexts made here: they drop their hold on the driver (and a
  // decoder's, its stream).
  static void FreeDecoderContext(AVHWDeviceContext* context);
  static void FreePrimaryContext(AVHWDeviceContext* context);
  // Shared with every device context made here, which may outlive this object (pictures held).
  std::shared_ptr<Driver> driver_;
  AVBufferRef* context_ = nullptr;
  int device_index_ = 0;
  mutable absl::Mutex pools_mutex_;
  // By software format, width and height.
  mutable std::map<std::tuple<int, int, int>, AVBufferRef*> pools_ ABSL_GUARDED_BY(pools_mutex_);
};

}  // namespace ssimd

#endif  // SSIMD_ENGINE_MEDIA_CUDA_PICTURE_SYNC_H_
