#include "engine/media/cuda_picture_sync.h"

#include <algorithm>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "engine/media/av_handles.h"

// The loader reports failures through this macro; Open reports them itself.
#define FFNV_LOG_FUNC(logctx, msg, ...) ((void)(logctx))
#define FFNV_DEBUG_LOG_FUNC(logctx, msg, ...) ((void)(logctx))
#include <ffnvcodec/dynlink_loader.h>

extern "C" {
#include <libavutil/hwcontext.h>
#include <libavutil/hwcontext_cuda.h>
#include <libavutil/pixdesc.h>
}

namespace ssimd {

struct CudaPictureSync::Driver {
  CudaFunctions* cu = nullptr;
  CUdevice device = 0;
  CUcontext context = nullptr;  // the retained primary context
  ~Driver() {
    if (context != nullptr) cu->cuDevicePrimaryCtxRelease(device);
    cuda_free_functions(&cu);
  }

  std::string ErrorText(CUresult rc) const {
    const char* name = nullptr;
    if (cu->cuGetErrorName(rc, &name) != CUDA_SUCCESS || name == nullptr) {
      return absl::StrFormat("CUDA error %d", static_cast<int>(rc));
    }
    return name;
  }
  absl::Status Check(CUresult rc, const char* what) const {
    if (rc == CUDA_SUCCESS) return absl::OkStatus();
    return absl::UnavailableError(absl::StrFormat("%s failed (%s)", what, ErrorText(rc)));
  }
};

CudaPictureSync::CudaPictureSync(std::unique_ptr<Driver> driver) : driver_(std::move(driver)) {}

CudaPictureSync::~CudaPictureSync() {
  // libavcodec's context first: it was given the primary context, not made owner of it.
  av_buffer_unref(&context_);
}

absl::StatusOr<std::unique_ptr<CudaPictureSync>> CudaPictureSync::Open(
    const std::string& device) {
  int index = 0;
  if (!device.empty() && (!absl::SimpleAtoi(device, &index) || index < 0)) {
    return absl::UnavailableError(
        absl::StrFormat("CUDA device \"%s\": expected a device index", device));
  }
  auto driver = std::make_unique<Driver>();
  if (cuda_load_functions(&driver->cu, nullptr) != 0) {
    return absl::UnavailableError("the NVIDIA driver's libcuda.so.1 could not be loaded");
  }
  CudaFunctions* cu = driver->cu;
  if (absl::Status s = driver->Check(cu->cuInit(0), "initialising CUDA"); !s.ok()) return s;
  if (absl::Status s = driver->Check(cu->cuDeviceGet(&driver->device, index),
                                     "finding the CUDA device");
      !s.ok()) {
    return s;
  }
  if (absl::Status s = driver->Check(cu->cuDevicePrimaryCtxRetain(&driver->context,
                                                                  driver->device),
                                     "retaining the device's primary context");
      !s.ok()) {
    driver->context = nullptr;
    return s;
  }
  std::unique_ptr<CudaPictureSync> sync(new CudaPictureSync(std::move(driver)));
  sync->device_index_ = index;
  sync->context_ = av_hwdevice_ctx_alloc(AV_HWDEVICE_TYPE_CUDA);
  if (sync->context_ == nullptr) return absl::ResourceExhaustedError("out of memory");
  auto* hw = reinterpret_cast<AVHWDeviceContext*>(sync->context_->data);
  static_cast<AVCUDADeviceContext*>(hw->hwctx)->cuda_ctx = sync->driver_->context;
  // The stream stays null: libavcodec then queues its copies on the context's default stream.
  if (const int rc = av_hwdevice_ctx_init(sync->context_); rc < 0) {
    return absl::UnavailableError(absl::StrFormat(
        "libavcodec did not take the primary CUDA context (%s)", AvErrorText(rc)));
  }
  return sync;
}

absl::Status CudaPictureSync::CopyOut(const AVFrame& decoded, AVFrame* out) const {
  av_frame_unref(out);
  if (decoded.hw_frames_ctx == nullptr) {
    return absl::InternalError("a picture to copy out of the decoder is not a device frame");
  }
  if (const int rc = av_hwframe_get_buffer(decoded.hw_frames_ctx, out, 0); rc < 0) {
    return absl::ResourceExhaustedError(absl::StrFormat(
        "no device memory for a decoded picture (%s)", AvErrorText(rc)));
  }
  const auto* frames = reinterpret_cast<const AVHWFramesContext*>(decoded.hw_frames_ctx->data);
  const AVPixFmtDescriptor* layout = av_pix_fmt_desc_get(frames->sw_format);
  const auto* hw = reinterpret_cast<const AVHWDeviceContext*>(context_->data);
  const CUstream stream = static_cast<const AVCUDADeviceContext*>(hw->hwctx)->stream;
  CudaFunctions* cu = driver_->cu;
  CUresult rc = cu->cuCtxPushCurrent(driver_->context);
  if (rc != CUDA_SUCCESS) return driver_->Check(rc, "making the decoder's context current");
  // Queued behind the engine's output on the same stream, so each copy reads a finished picture.
  for (int i = 0; i < AV_NUM_DATA_POINTERS && decoded.data[i] != nullptr && rc == CUDA_SUCCESS;
       ++i) {
    CUDA_MEMCPY2D copy = {};
    copy.srcMemoryType = CU_MEMORYTYPE_DEVICE;
    copy.srcDevice = reinterpret_cast<CUdeviceptr>(decoded.data[i]);
    copy.srcPitch = static_cast<size_t>(decoded.linesize[i]);
    copy.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    copy.dstDevice = reinterpret_cast<CUdeviceptr>(out->data[i]);
    copy.dstPitch = static_cast<size_t>(out->linesize[i]);
    // Both pitches hold a whole row of the picture.
    copy.WidthInBytes = std::min(copy.srcPitch, copy.dstPitch);
    copy.Height = static_cast<size_t>(
        i == 0 || i == 3 ? decoded.height : AV_CEIL_RSHIFT(decoded.height, layout->log2_chroma_h));
    rc = cu->cuMemcpy2DAsync(&copy, stream);
  }
  if (rc == CUDA_SUCCESS) rc = cu->cuStreamSynchronize(stream);
  CUcontext popped = nullptr;
  cu->cuCtxPopCurrent(&popped);
  if (rc != CUDA_SUCCESS) {
    av_frame_unref(out);
    return driver_->Check(rc, "copying a picture out of the GPU decoder's surface");
  }
  out->width = decoded.width;
  out->height = decoded.height;
  if (av_frame_copy_props(out, &decoded) < 0) {
    return absl::ResourceExhaustedError("out of memory for a decoded picture");
  }
  return absl::OkStatus();
}

}  // namespace ssimd
