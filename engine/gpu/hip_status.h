// HIP runtime errors as absl::Status, and the test for a device that can no longer be used.
// GPU builds only.
#ifndef SSIMD_ENGINE_GPU_HIP_STATUS_H_
#define SSIMD_ENGINE_GPU_HIP_STATUS_H_

#include <string_view>

#include "absl/status/status.h"
#include "kernels/hip_portability.h"

namespace ssimd {

// UNAVAILABLE for an exhausted device memory, INTERNAL otherwise; the message names the call,
// the error's name and its description.
absl::Status HipStatus(hipError_t error, std::string_view what);

// After an error on the current device: true when the device's context is unusable (a sticky
// error such as an illegal address, which every later call repeats). Clears a non-sticky error.
bool CurrentDeviceLost();

}  // namespace ssimd

#define SSIMD_HIP_RETURN_IF_ERROR(expr, what)              \
  do {                                                     \
    const hipError_t ssimd_hip_error_ = (expr);            \
    if (ssimd_hip_error_ != hipSuccess) {                  \
      return ::ssimd::HipStatus(ssimd_hip_error_, (what)); \
    }                                                      \
  } while (false)

#endif  // SSIMD_ENGINE_GPU_HIP_STATUS_H_
