// A video engine's stored luma sample as the software decoder gives it: NVDEC's P010 and P016
// (and VA-API's) keep 10- and 12-bit samples in the high bits of 16-bit words, libavcodec's
// software decoders in the low bits. The same shift serves the host's copy of a downloaded
// picture (engine/media/hw_frame_download.h) and the device's packing of a picture left where the
// engine decoded it (kernels/luma_pack_kernels.hip).
#ifndef SSIMD_KERNELS_LUMA_PACK_MATH_H_
#define SSIMD_KERNELS_LUMA_PACK_MATH_H_

#include <cstdint>

#include "kernels/hd.h"

namespace ssimd {

// The engine's low bits are zero for the depths it decodes, so the shift loses nothing.
SSIMD_HD inline uint32_t SoftwareSampleOf(uint32_t stored, int sample_shift) {
  return stored >> sample_shift;
}

}  // namespace ssimd

#endif  // SSIMD_KERNELS_LUMA_PACK_MATH_H_
