// Host entry point of libvmaf's integer adm on the device (kernels/vmaf_adm_kernels.hip): the
// exact integer sums of one frame pair (AdmSums, kernels/vmaf_adm_math.h). The host turns them
// into integer_adm2, the scales, adm3 and aim with FinishIntegerAdm (engine/cpu/vmaf/adm.h), the
// CPU's own finish, so both paths give the same bits.
#ifndef SSIMD_KERNELS_VMAF_ADM_KERNELS_H_
#define SSIMD_KERNELS_VMAF_ADM_KERNELS_H_

#include <cstddef>

#include "kernels/hip_portability.h"
#include "kernels/vmaf_adm_math.h"

namespace ssimd {

// Bytes of device workspace a width x height frame needs: the wavelet bands of both pictures and
// one scale's decoupled, CSF-weighted and masking planes.
size_t VmafAdmWorkspaceBytes(int width, int height);

struct VmafAdmLaunch {
  const void* reference = nullptr;  // width x height packed samples: uint8 at 8 bits, uint16 above
  const void* distorted = nullptr;
  int width = 0;  // at least kAdmMinSide each
  int height = 0;
  int bit_depth = 8;  // 8, 10, 12 or 16
  // As ValidateAdmOptions accepts them, through AdmSumOptionsOf (engine/cpu/vmaf/adm.h).
  AdmSumOptions options;
  void* workspace = nullptr;  // VmafAdmWorkspaceBytes(width, height), any contents
  AdmSums* sums = nullptr;    // device; zeroed, then filled
};

// Enqueues the frame's kernels on `stream`; returns the first launch error. hipErrorInvalidValue
// (nothing enqueued) for sizes, bit depths or options the CPU refuses.
hipError_t LaunchVmafAdm(const VmafAdmLaunch& launch, hipStream_t stream);

}  // namespace ssimd

#endif  // SSIMD_KERNELS_VMAF_ADM_KERNELS_H_
