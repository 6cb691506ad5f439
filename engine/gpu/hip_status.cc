#include "engine/gpu/hip_status.h"

#include "absl/strings/str_format.h"

namespace ssimd {

absl::Status HipStatus(hipError_t error, std::string_view what) {
  const std::string message =
      absl::StrFormat("%s failed: %s (%s)", what, hipGetErrorName(error), hipGetErrorString(error));
  if (error == hipErrorOutOfMemory) return absl::UnavailableError(message);
  return absl::InternalError(message);
}

bool CurrentDeviceLost() {
  (void)hipGetLastError();  // a non-sticky error is reported once and then cleared
  return hipDeviceSynchronize() != hipSuccess;
}

}  // namespace ssimd
