// NVDEC's decode table, read from the driver (cuvidGetDecoderCaps through the NVIDIA driver's
// libnvcuvid, loaded at run time with nv-codec-headers' loader, as libavcodec does): for each codec
// libavcodec's `cuda` hwaccel drives, each chroma layout and depth the engines take, with their
// coded-size bounds and engine count.
#ifndef SSIMD_ENGINE_MEDIA_NVDEC_CAPS_H_
#define SSIMD_ENGINE_MEDIA_NVDEC_CAPS_H_

#include "engine/media/decode_caps.h"

extern "C" {
#include <libavutil/buffer.h>
}

namespace ssimd {

// `cuda_device` is libavutil's AV_HWDEVICE_TYPE_CUDA device context; the probe runs in its CUDA
// context. A table with unknown_reason set when the driver's libraries or the query fail.
DecodeCaps ProbeNvdecCaps(AVBufferRef* cuda_device);

}  // namespace ssimd

#endif  // SSIMD_ENGINE_MEDIA_NVDEC_CAPS_H_
