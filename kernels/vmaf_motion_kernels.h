// Host entry point of libvmaf's integer motion on the device (kernels/vmaf_motion_kernels.hip):
// the exact SAD sum of the filtered difference of two reference pictures, the only per-pixel work
// of VMAF_integer_feature_motion_sad_score. The sum is an integer, so the device's order of
// addition cannot change it; MotionSadScoreFromSum (engine/cpu/vmaf/motion.h) turns it into the
// score on the host, the same finish the CPU path runs.
#ifndef SSIMD_KERNELS_VMAF_MOTION_KERNELS_H_
#define SSIMD_KERNELS_VMAF_MOTION_KERNELS_H_

#include <cstddef>

#include "kernels/hip_portability.h"

namespace ssimd {

// Bytes of device workspace one frame of `width` x `height` needs: none, the filter's
// intermediate rows live in each block's shared memory. Kept so the frame code sizes every
// feature's workspace the same way.
size_t VmafMotionWorkspaceBytes(int width, int height);

struct VmafMotionLaunch {
  // Two reference luma planes of the same size and depth, packed rows of `width` samples (uint8
  // at 8 bits, uint16 above): the earlier picture the frame is compared with (one frame back, or
  // two with motion_five_frame_window) and the frame's own.
  const void* previous = nullptr;
  const void* reference = nullptr;
  int width = 0;   // at least kMotionMinSide (3), as the CPU requires
  int height = 0;  // at least kMotionMinSide
  int bit_depth = 8;  // 8 to 16
  void* workspace = nullptr;  // VmafMotionWorkspaceBytes bytes (may be null: that is 0)
  // One device word: set to 0, then the frame's SAD sum (MotionSadSum's value) is added into it.
  unsigned long long* sad_sum = nullptr;  // NOLINT(runtime/int): the type atomicAdd takes
};

// Enqueues the zeroing and the sum on `stream`. Returns hipErrorInvalidValue, after zeroing, for a
// side below 3 or a bit depth outside 8..16 (the mirrored borders would read outside the planes);
// otherwise the launch error.
hipError_t LaunchVmafMotion(const VmafMotionLaunch& launch, hipStream_t stream);

}  // namespace ssimd

#endif  // SSIMD_KERNELS_VMAF_MOTION_KERNELS_H_
