// Host entry point of the luma packer (kernels/luma_pack_kernels.hip): a plane that a video engine
// decoded into device memory, rows `src_pitch` bytes apart and 16-bit samples possibly stored high
// (P010, P016), into the packed rows with samples in the low bits that the scorer's kernels read,
// the same bytes an upload of the host's copy would put there (docs/adr/0083). Enqueues on
// `stream` and returns the launch error; the caller owns both buffers.
#ifndef SSIMD_KERNELS_LUMA_PACK_KERNELS_H_
#define SSIMD_KERNELS_LUMA_PACK_KERNELS_H_

#include <cstddef>

#include "kernels/hip_portability.h"

namespace ssimd {

struct LumaPackLaunch {
  const void* src = nullptr;
  size_t src_pitch = 0;
  int width = 0;
  int height = 0;
  int bit_depth = 8;     // uint8 samples at 8 bits, uint16 above
  int sample_shift = 0;  // 16-bit samples only
  void* dst = nullptr;   // width x height packed samples
};

hipError_t LaunchLumaPack(const LumaPackLaunch& launch, hipStream_t stream);

}  // namespace ssimd

#endif  // SSIMD_KERNELS_LUMA_PACK_KERNELS_H_
