#include "engine/media/nvdec_utilization.h"

#include <dlfcn.h>

#include "absl/strings/str_format.h"

#define FFNV_LOG_FUNC(logctx, msg, ...) ((void)(logctx))
#define FFNV_DEBUG_LOG_FUNC(logctx, msg, ...) ((void)(logctx))
#include <ffnvcodec/dynlink_loader.h>

extern "C" {
#include <libavutil/hwcontext.h>
#include <libavutil/hwcontext_cuda.h>
}

namespace ssimd {
namespace {

// The few NVML entry points used, declared from NVML's documented C interface (its header is not
// packaged here): results are an int enum whose success is 0, devices opaque handles.
using NvmlReturn = int;
constexpr NvmlReturn kNvmlSuccess = 0;
struct NvmlDeviceOpaque;
using NvmlDevice = NvmlDeviceOpaque*;
using NvmlInit = NvmlReturn (*)();
using NvmlShutdown = NvmlReturn (*)();
using NvmlErrorString = const char* (*)(NvmlReturn);
using NvmlHandleByPciBusId = NvmlReturn (*)(const char*, NvmlDevice*);
using NvmlDecoderUtilization = NvmlReturn (*)(NvmlDevice, unsigned int*, unsigned int*);

// The CUDA device of the decoding context, as a PCI address.
absl::StatusOr<std::string> PciBusIdOf(AVBufferRef* cuda_device) {
  if (cuda_device == nullptr) return absl::UnavailableError("no CUDA device context");
  const auto* device = reinterpret_cast<const AVHWDeviceContext*>(cuda_device->data);
  if (device->type != AV_HWDEVICE_TYPE_CUDA) {
    return absl::UnavailableError("not a CUDA device context");
  }
  const auto* cuda = static_cast<const AVCUDADeviceContext*>(device->hwctx);
  CudaFunctions* cu = nullptr;
  if (cuda_load_functions(&cu, nullptr) != 0) {
    return absl::UnavailableError("the NVIDIA driver's libcuda.so.1 could not be loaded");
  }
  absl::StatusOr<std::string> id = absl::UnavailableError(
      "the decoding device's PCI address could not be read from CUDA");
  if (cu->cuCtxPushCurrent(cuda->cuda_ctx) == CUDA_SUCCESS) {
    CUdevice dev = 0;
    int domain = 0, bus = 0, slot = 0;
    if (cu->cuCtxGetDevice(&dev) == CUDA_SUCCESS &&
        cu->cuDeviceGetAttribute(&domain, CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, dev) ==
            CUDA_SUCCESS &&
        cu->cuDeviceGetAttribute(&bus, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, dev) == CUDA_SUCCESS &&
        cu->cuDeviceGetAttribute(&slot, CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, dev) == CUDA_SUCCESS) {
      id = absl::StrFormat("%08x:%02x:%02x.0", domain, bus, slot);
    }
    CUcontext popped = nullptr;
    cu->cuCtxPopCurrent(&popped);
  }
  cuda_free_functions(&cu);
  return id;
}

}  // namespace

struct NvdecUtilization::Library {
  void* handle = nullptr;
  NvmlShutdown shutdown = nullptr;
  NvmlErrorString error_string = nullptr;
  NvmlDecoderUtilization decoder_utilization = nullptr;
  NvmlDevice device = nullptr;
  bool initialised = false;

  ~Library() {
    if (initialised) shutdown();
    if (handle != nullptr) dlclose(handle);
  }
  std::string ErrorText(NvmlReturn rc) const {
    const char* text = error_string != nullptr ? error_string(rc) : nullptr;
    return text != nullptr ? text : absl::StrFormat("NVML error %d", rc);
  }
};

absl::StatusOr<std::unique_ptr<NvdecUtilization>> NvdecUtilization::Open(
    AVBufferRef* cuda_device) {
  absl::StatusOr<std::string> bus_id = PciBusIdOf(cuda_device);
  if (!bus_id.ok()) return bus_id.status();
  auto library = std::make_unique<Library>();
  library->handle = dlopen("libnvidia-ml.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (library->handle == nullptr) {
    return absl::UnavailableError("the NVIDIA driver's libnvidia-ml.so.1 could not be loaded");
  }
  // NVML's versioned names: nvmlInit_v2 and the _v2 PCI lookup are the current ABI.
  auto init = reinterpret_cast<NvmlInit>(dlsym(library->handle, "nvmlInit_v2"));
  library->shutdown = reinterpret_cast<NvmlShutdown>(dlsym(library->handle, "nvmlShutdown"));
  library->error_string =
      reinterpret_cast<NvmlErrorString>(dlsym(library->handle, "nvmlErrorString"));
  auto by_bus_id = reinterpret_cast<NvmlHandleByPciBusId>(
      dlsym(library->handle, "nvmlDeviceGetHandleByPciBusId_v2"));
  library->decoder_utilization = reinterpret_cast<NvmlDecoderUtilization>(
      dlsym(library->handle, "nvmlDeviceGetDecoderUtilization"));
  if (init == nullptr || library->shutdown == nullptr || by_bus_id == nullptr ||
      library->decoder_utilization == nullptr) {
    return absl::UnavailableError("libnvidia-ml.so.1 lacks the functions ssimd reads");
  }
  if (const NvmlReturn rc = init(); rc != kNvmlSuccess) {
    return absl::UnavailableError(
        absl::StrFormat("NVML did not start: %s", library->ErrorText(rc)));
  }
  library->initialised = true;
  if (const NvmlReturn rc = by_bus_id(bus_id->c_str(), &library->device); rc != kNvmlSuccess) {
    return absl::UnavailableError(absl::StrFormat("NVML has no device at PCI address %s: %s",
                                                  *bus_id, library->ErrorText(rc)));
  }
  std::unique_ptr<NvdecUtilization> utilization(new NvdecUtilization());
  utilization->library_ = std::move(library);
  utilization->pci_bus_id_ = *std::move(bus_id);
  return utilization;
}

NvdecUtilization::~NvdecUtilization() = default;

absl::StatusOr<double> NvdecUtilization::Sample() const {
  unsigned int percent = 0;
  unsigned int period_us = 0;
  const NvmlReturn rc = library_->decoder_utilization(library_->device, &percent, &period_us);
  if (rc != kNvmlSuccess) {
    return absl::UnavailableError(absl::StrFormat("NVML's decoder utilization of %s: %s",
                                                  pci_bus_id_, library_->ErrorText(rc)));
  }
  return percent / 100.0;
}

}  // namespace ssimd
