#include "engine/media/cuda_picture_sync.h"

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

absl::Status CudaPictureSync::WaitForPictures() const {
  CudaFunctions* cu = driver_->cu;
  CUresult rc = cu->cuCtxPushCurrent(driver_->context);
  if (rc == CUDA_SUCCESS) {
    const auto* hw = reinterpret_cast<const AVHWDeviceContext*>(context_->data);
    rc = cu->cuStreamSynchronize(static_cast<const AVCUDADeviceContext*>(hw->hwctx)->stream);
    CUcontext popped = nullptr;
    cu->cuCtxPopCurrent(&popped);
  }
  if (rc != CUDA_SUCCESS) {
    return absl::UnavailableError(absl::StrFormat(
        "waiting for the GPU decoder's picture copies failed (%s)", driver_->ErrorText(rc)));
  }
  return absl::OkStatus();
}

}  // namespace ssimd
