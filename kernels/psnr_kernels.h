// Host entry point of psnr's device sum (kernels/psnr_kernels.hip): the exact integer sum of
// squared errors of one plane pair, the only per-pixel work libvmaf's psnr does. The sum is an
// integer, so the device's order of addition cannot change it: the host turns it into psnr with
// kernels/psnr_math.h and gets the CPU's bits.
#ifndef SSIMD_KERNELS_PSNR_KERNELS_H_
#define SSIMD_KERNELS_PSNR_KERNELS_H_

#include <cstddef>
#include <cstdint>

#include "kernels/hip_portability.h"

namespace ssimd {

struct PsnrSseLaunch {
  const void* reference = nullptr;  // width x height samples, rows a pitch apart
  const void* distorted = nullptr;
  int width = 0;
  int height = 0;
  int bit_depth = 8;  // uint8 samples at 8 bits, uint16 above
  // Bytes between rows; 0: packed rows (a plane scaled to a larger stored size is read in part).
  size_t reference_pitch = 0;
  size_t distorted_pitch = 0;
  // One device word: set to 0, then the plane's sum is added into it.
  unsigned long long* sse = nullptr;  // NOLINT(runtime/int): the type atomicAdd takes
};

// Enqueues the zeroing and the sum on `stream`; returns the launch error.
hipError_t LaunchPsnrSse(const PsnrSseLaunch& launch, hipStream_t stream);

}  // namespace ssimd

#endif  // SSIMD_KERNELS_PSNR_KERNELS_H_
