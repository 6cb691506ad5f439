// How busy the GPU's video decoders are, as NVML reports it (nvmlDeviceGetDecoderUtilization: the
// share of its last sampling period during which the decoders worked), for the device libavcodec's
// `cuda` context runs on, found by PCI address so that CUDA's and NVML's device orders may differ.
// The driver's libnvidia-ml is loaded at run time: nothing NVIDIA is needed to build or to run
// without a GPU.
#ifndef SSIMD_ENGINE_MEDIA_NVDEC_UTILIZATION_H_
#define SSIMD_ENGINE_MEDIA_NVDEC_UTILIZATION_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"

extern "C" {
#include <libavutil/buffer.h>
}

namespace ssimd {

class NvdecUtilization {
 public:
  // `cuda_device` is libavutil's AV_HWDEVICE_TYPE_CUDA device context. UNAVAILABLE saying why
  // when the driver's libraries, the device's PCI address or NVML's device cannot be had.
  static absl::StatusOr<std::unique_ptr<NvdecUtilization>> Open(AVBufferRef* cuda_device);
  ~NvdecUtilization();
  NvdecUtilization(const NvdecUtilization&) = delete;
  NvdecUtilization& operator=(const NvdecUtilization&) = delete;

  // The decoders' utilization over NVML's last sampling period, 0 to 1. UNAVAILABLE when NVML
  // fails now (a lost GPU). Thread-safe.
  absl::StatusOr<double> Sample() const;
  // The device's PCI address as NVML takes it ("00000000:1B:00.0").
  const std::string& pci_bus_id() const { return pci_bus_id_; }

 private:
  struct Library;
  NvdecUtilization() = default;

  std::unique_ptr<Library> library_;
  std::string pci_bus_id_;
};

}  // namespace ssimd

#endif  // SSIMD_ENGINE_MEDIA_NVDEC_UTILIZATION_H_
