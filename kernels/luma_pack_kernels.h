// Host entry point of the plane packer (kernels/luma_pack_kernels.hip): a plane that a video
// engine decoded into device memory, rows `src_pitch` bytes apart, 16-bit samples possibly stored
// high (P010, P016), Cb and Cr possibly interleaved (NV12's second plane), into the packed rows
// with samples in the low bits that the scorer's kernels read, the same bytes an upload of the
// host's copy would put there (docs/adr/0083). Enqueues on `stream` and returns the launch error;
// the caller owns both buffers.
#ifndef SSIMD_KERNELS_LUMA_PACK_KERNELS_H_
#define SSIMD_KERNELS_LUMA_PACK_KERNELS_H_

#include <cstddef>

#include "kernels/hip_portability.h"

namespace ssimd {

struct LumaPackLaunch {
  const void* src = nullptr;
  size_t src_pitch = 0;
  int width = 0;         // of the packed plane: the source's top-left part where it is smaller
  int height = 0;
  int bit_depth = 8;     // uint8 samples at 8 bits, uint16 above
  int sample_shift = 0;  // 16-bit samples only
  // Interleaved planes: the plane's samples are every src_step-th of a row from sample src_first
  // (Cr of NV12's CbCr plane: step 2, first 1).
  int src_step = 1;
  int src_first = 0;
  void* dst = nullptr;   // width x height packed samples
};

hipError_t LaunchLumaPack(const LumaPackLaunch& launch, hipStream_t stream);

}  // namespace ssimd

#endif  // SSIMD_KERNELS_LUMA_PACK_KERNELS_H_
