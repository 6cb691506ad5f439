// Host entry point of libvmaf's integer vif on the device (kernels/vmaf_vif_kernels.hip): the
// exact integer sums of a frame pair's four scales (VifFrameSums, kernels/vmaf_vif_math.h). They
// are integers, so the device's order of addition cannot change them, and the host turns them
// into scores with the CPU's own finish (IntegerVifScoresFromSums, engine/cpu/vmaf/vif.h).
//
// The device mirrors every picture edge by reflecting indices once, which is libvmaf's buffer
// layout only where every side is at least kVifReflectOnceMinSide (see there); smaller pictures
// are the CPU's (VmafVifDeviceServes).
#ifndef SSIMD_KERNELS_VMAF_VIF_KERNELS_H_
#define SSIMD_KERNELS_VMAF_VIF_KERNELS_H_

#include <cstddef>
#include <cstdint>

#include "kernels/hip_portability.h"
#include "kernels/vmaf_vif_math.h"

namespace ssimd {

// Whether the device computes vif for a picture of this size (the CPU's other checks aside: the
// bit depth, equal sizes and the largest side are the caller's). False below 16 on either side,
// where libvmaf's mirroring reads values an earlier scale left behind.
inline bool VmafVifDeviceServes(int width, int height) {
  return width >= kVifReflectOnceMinSide && height >= kVifReflectOnceMinSide;
}

// Bytes of device workspace a frame of this size needs: the 16-bit pictures of scales 1 to 3.
size_t VmafVifWorkspaceBytes(int width, int height);

struct VmafVifLaunch {
  const void* reference = nullptr;  // width x height packed samples
  const void* distorted = nullptr;
  int width = 0;
  int height = 0;
  int bit_depth = 8;  // 8, 10, 12 or 16: uint8 samples at 8 bits, uint16 above
  // The options of VifOptions (engine/cpu/vmaf/vif.h), already validated.
  double enhn_gain_limit = kVifDefaultEnhnGainLimit;
  bool skip_scale0 = false;
  // Device copy of libvmaf's log2 table, kVifLog2TableSize entries: the host's
  // IntegerVifLog2Table() (engine/cpu/vmaf/vif.h, or FillVifLog2Table), copied once per device
  // and only read.
  const uint16_t* log2_table = nullptr;
  void* workspace = nullptr;  // VmafVifWorkspaceBytes(width, height), 256-byte aligned
  // Device: set to 0, then every scale's sums are added into it.
  VifFrameSums* sums = nullptr;
};

// Enqueues the zeroing of the sums and the four scales on `stream`; returns the launch error.
// Requires VmafVifDeviceServes(width, height); hipErrorInvalidValue otherwise.
hipError_t LaunchVmafVif(const VmafVifLaunch& launch, hipStream_t stream);

}  // namespace ssimd

#endif  // SSIMD_KERNELS_VMAF_VIF_KERNELS_H_
