// Test support: puts the calling device's context into the state a hardware fault leaves it in.
#ifndef SSIMD_KERNELS_FAULT_KERNEL_H_
#define SSIMD_KERNELS_FAULT_KERNEL_H_

#include "kernels/hip_portability.h"

namespace ssimd {

// Enqueues a kernel that writes through an invalid device address on `stream`. Once it runs,
// every later call on this device fails with a sticky error (an illegal address on NVIDIA).
// On AMD the runtime may end the process instead, so tests call it only in a child process.
hipError_t LaunchDeviceFault(hipStream_t stream);

}  // namespace ssimd

#endif  // SSIMD_KERNELS_FAULT_KERNEL_H_
