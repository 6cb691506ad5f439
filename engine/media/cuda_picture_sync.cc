#include "engine/media/cuda_picture_sync.h"

#include <dlfcn.h>

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
namespace {

// The driver's copy between two contexts, cuMemcpy3DPeerAsync, which the loader's table lacks:
// its parameters as the driver API lays them out (CUDA_MEMCPY3D_PEER).
struct PeerCopy {
  size_t src_x_bytes, src_y, src_z, src_lod;
  CUmemorytype src_memory_type;
  const void* src_host;
  CUdeviceptr src_device;
  CUarray src_array;
  CUcontext src_context;
  size_t src_pitch, src_height;
  size_t dst_x_bytes, dst_y, dst_z, dst_lod;
  CUmemorytype dst_memory_type;
  void* dst_host;
  CUdeviceptr dst_device;
  CUarray dst_array;
  CUcontext dst_context;
  size_t dst_pitch, dst_height;
  size_t width_bytes, height, depth;
};
using PeerCopyAsync = CUresult (*)(const PeerCopy*, CUstream);

}  // namespace

struct CudaPictureSync::Driver {
  CudaFunctions* cu = nullptr;
  CUdevice device = 0;
  CUcontext context = nullptr;  // the retained primary context
  void* libcuda = nullptr;      // for the peer copy
  PeerCopyAsync copy_between_contexts = nullptr;
  absl::Mutex mutex;
  std::map<int, CUcontext> decoding_contexts ABSL_GUARDED_BY(mutex);

  ~Driver() {
    {
      absl::MutexLock lock(&mutex);
      for (const auto& [slot, decoding] : decoding_contexts) cu->cuCtxDestroy(decoding);
    }
    if (context != nullptr) cu->cuDevicePrimaryCtxRelease(device);
    if (libcuda != nullptr) dlclose(libcuda);
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

  // Decoding context `slot`, made on first use; the primary context for a negative slot or
  // where pictures could not be copied out of another context.
  absl::StatusOr<CUcontext> DecodingContext(int slot) {
    if (slot < 0 || copy_between_contexts == nullptr) return context;
    absl::MutexLock lock(&mutex);
    CUcontext& decoding = decoding_contexts[slot];
    if (decoding != nullptr) return decoding;
    CUresult rc = cu->cuCtxCreate(&decoding, 0, device);
    if (rc != CUDA_SUCCESS) {
      decoding_contexts.erase(slot);
      return Check(rc, "creating a decoding context");
    }
    CUcontext popped = nullptr;  // creating made it current on this thread
    cu->cuCtxPopCurrent(&popped);
    return decoding;
  }
};

// What a decoder's device context owns beyond libavcodec's part: its stream, and the driver
// (with its contexts) until the stream is gone.
struct CudaPictureSync::DecoderStream {
  std::shared_ptr<Driver> driver;
  CUcontext context = nullptr;
  CUstream stream = nullptr;
};

CudaPictureSync::CudaPictureSync(std::shared_ptr<Driver> driver) : driver_(std::move(driver)) {}

CudaPictureSync::~CudaPictureSync() {
  absl::MutexLock lock(&pools_mutex_);
  for (auto& [shape, pool] : pools_) av_buffer_unref(&pool);
  av_buffer_unref(&context_);
}

absl::StatusOr<std::unique_ptr<CudaPictureSync>> CudaPictureSync::Open(
    const std::string& device) {
  int index = 0;
  if (!device.empty() && (!absl::SimpleAtoi(device, &index) || index < 0)) {
    return absl::UnavailableError(
        absl::StrFormat("CUDA device \"%s\": expected a device index", device));
  }
  auto driver = std::make_shared<Driver>();
  if (cuda_load_functions(&driver->cu, nullptr) != 0) {
    return absl::UnavailableError("the NVIDIA driver's libcuda.so.1 could not be loaded");
  }
  CudaFunctions* cu = driver->cu;
  if (absl::Status s = driver->Check(cu->cuInit(0), "initialising CUDA"); !s.ok()) return s;
  // Without the peer copy every decoder decodes in the primary context (one at a time).
  driver->libcuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (driver->libcuda != nullptr) {
    driver->copy_between_contexts =
        reinterpret_cast<PeerCopyAsync>(dlsym(driver->libcuda, "cuMemcpy3DPeerAsync"));
  }
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
  // Its stream stays null (the legacy default stream): it probes the engines and holds the
  // pools pictures are copied into; decoders get contexts of their own (NewDecoderContext).
  hw->user_opaque = new std::shared_ptr<Driver>(sync->driver_);
  hw->free = &CudaPictureSync::FreePrimaryContext;
  if (const int rc = av_hwdevice_ctx_init(sync->context_); rc < 0) {
    return absl::UnavailableError(absl::StrFormat(
        "libavcodec did not take the primary CUDA context (%s)", AvErrorText(rc)));
  }
  return sync;
}

void CudaPictureSync::FreePrimaryContext(AVHWDeviceContext* context) {
  delete static_cast<std::shared_ptr<Driver>*>(context->user_opaque);
}

absl::StatusOr<AVBufferRef*> CudaPictureSync::NewDecoderContext(int slot) const {
  absl::StatusOr<CUcontext> decoding = driver_->DecodingContext(slot);
  if (!decoding.ok()) return decoding.status();
  CudaFunctions* cu = driver_->cu;
  CUstream stream = nullptr;
  CUresult rc = cu->cuCtxPushCurrent(*decoding);
  if (rc != CUDA_SUCCESS) return driver_->Check(rc, "making a decoding context current");
  rc = cu->cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING);
  CUcontext popped = nullptr;
  cu->cuCtxPopCurrent(&popped);
  if (rc != CUDA_SUCCESS) return driver_->Check(rc, "creating a decoder's CUDA stream");
  AVBufferRef* context = av_hwdevice_ctx_alloc(AV_HWDEVICE_TYPE_CUDA);
  if (context == nullptr) {
    cu->cuStreamDestroy(stream);
    return absl::ResourceExhaustedError("out of memory");
  }
  auto* hw = reinterpret_cast<AVHWDeviceContext*>(context->data);
  auto* cuda = static_cast<AVCUDADeviceContext*>(hw->hwctx);
  cuda->cuda_ctx = *decoding;
  cuda->stream = stream;
  // From here the context's free callback destroys the stream, also when init fails.
  hw->user_opaque = new DecoderStream{driver_, *decoding, stream};
  hw->free = &CudaPictureSync::FreeDecoderContext;
  if (const int init = av_hwdevice_ctx_init(context); init < 0) {
    av_buffer_unref(&context);
    return absl::UnavailableError(absl::StrFormat(
        "libavcodec did not take a CUDA context for a decoder (%s)", AvErrorText(init)));
  }
  return context;
}

void CudaPictureSync::FreeDecoderContext(AVHWDeviceContext* context) {
  auto* owned = static_cast<DecoderStream*>(context->user_opaque);
  CudaFunctions* cu = owned->driver->cu;
  if (cu->cuCtxPushCurrent(owned->context) == CUDA_SUCCESS) {
    cu->cuStreamDestroy(owned->stream);  // work still queued on it completes first
    CUcontext popped = nullptr;
    cu->cuCtxPopCurrent(&popped);
  }
  delete owned;
}

absl::StatusOr<AVBufferRef*> CudaPictureSync::PoolFor(const AVHWFramesContext& frames) const {
  absl::MutexLock lock(&pools_mutex_);
  AVBufferRef*& pool = pools_[{static_cast<int>(frames.sw_format), frames.width, frames.height}];
  if (pool != nullptr) return pool;
  pool = av_hwframe_ctx_alloc(context_);
  if (pool == nullptr) return absl::ResourceExhaustedError("out of memory");
  auto* made = reinterpret_cast<AVHWFramesContext*>(pool->data);
  made->format = AV_PIX_FMT_CUDA;
  made->sw_format = frames.sw_format;
  made->width = frames.width;
  made->height = frames.height;  // no initial size: the pool grows to what readers hold
  if (const int rc = av_hwframe_ctx_init(pool); rc < 0) {
    av_buffer_unref(&pool);
    return absl::ResourceExhaustedError(absl::StrFormat(
        "no device memory for decoded pictures (%s)", AvErrorText(rc)));
  }
  return pool;
}

absl::Status CudaPictureSync::CopyOut(const AVFrame& decoded, AVFrame* out) const {
  av_frame_unref(out);
  if (decoded.hw_frames_ctx == nullptr) {
    return absl::InternalError("a picture to copy out of the decoder is not a device frame");
  }
  const auto* frames = reinterpret_cast<const AVHWFramesContext*>(decoded.hw_frames_ctx->data);
  absl::StatusOr<AVBufferRef*> pool = PoolFor(*frames);
  if (!pool.ok()) return pool.status();
  if (const int rc = av_hwframe_get_buffer(*pool, out, 0); rc < 0) {
    return absl::ResourceExhaustedError(absl::StrFormat(
        "no device memory for a decoded picture (%s)", AvErrorText(rc)));
  }
  const AVPixFmtDescriptor* layout = av_pix_fmt_desc_get(frames->sw_format);
  // The decoder's own context and stream, where the engine's output was queued.
  const auto* source = static_cast<const AVCUDADeviceContext*>(frames->device_ctx->hwctx);
  CudaFunctions* cu = driver_->cu;
  CUresult rc = cu->cuCtxPushCurrent(source->cuda_ctx);
  if (rc != CUDA_SUCCESS) return driver_->Check(rc, "making the decoder's context current");
  for (int i = 0; i < AV_NUM_DATA_POINTERS && decoded.data[i] != nullptr && rc == CUDA_SUCCESS;
       ++i) {
    // Both pitches hold a whole row of the picture.
    const size_t src_pitch = static_cast<size_t>(decoded.linesize[i]);
    const size_t dst_pitch = static_cast<size_t>(out->linesize[i]);
    const size_t rows = static_cast<size_t>(
        i == 0 || i == 3 ? decoded.height : AV_CEIL_RSHIFT(decoded.height, layout->log2_chroma_h));
    if (source->cuda_ctx == driver_->context) {
      CUDA_MEMCPY2D copy = {};
      copy.srcMemoryType = CU_MEMORYTYPE_DEVICE;
      copy.srcDevice = reinterpret_cast<CUdeviceptr>(decoded.data[i]);
      copy.srcPitch = src_pitch;
      copy.dstMemoryType = CU_MEMORYTYPE_DEVICE;
      copy.dstDevice = reinterpret_cast<CUdeviceptr>(out->data[i]);
      copy.dstPitch = dst_pitch;
      copy.WidthInBytes = std::min(src_pitch, dst_pitch);
      copy.Height = rows;
      rc = cu->cuMemcpy2DAsync(&copy, source->stream);
    } else {
      PeerCopy copy = {};
      copy.src_memory_type = CU_MEMORYTYPE_DEVICE;
      copy.src_device = reinterpret_cast<CUdeviceptr>(decoded.data[i]);
      copy.src_context = source->cuda_ctx;
      copy.src_pitch = src_pitch;
      copy.dst_memory_type = CU_MEMORYTYPE_DEVICE;
      copy.dst_device = reinterpret_cast<CUdeviceptr>(out->data[i]);
      copy.dst_context = driver_->context;
      copy.dst_pitch = dst_pitch;
      copy.width_bytes = std::min(src_pitch, dst_pitch);
      copy.height = rows;
      copy.depth = 1;
      rc = driver_->copy_between_contexts(&copy, source->stream);
    }
  }
  if (rc == CUDA_SUCCESS) rc = cu->cuStreamSynchronize(source->stream);
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
