// Test support: an out-of-bounds store that faults the device context (see fault_kernel.h).
#include <cstdint>

#include "kernels/fault_kernel.h"
#include "kernels/hip_portability.h"

namespace ssimd {
namespace {

__global__ void DeviceFault(uintptr_t address) {
  // An address no allocation can have; volatile keeps the store.
  *reinterpret_cast<volatile int*>(address) = 1;
}

}  // namespace

hipError_t LaunchDeviceFault(hipStream_t stream) {
  hipLaunchKernelGGL(DeviceFault, dim3(1), dim3(1), 0, stream, uintptr_t{8});
  return hipGetLastError();
}

}  // namespace ssimd
