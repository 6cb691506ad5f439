// VA-API's decode table, read from the driver through the display of libavutil's VAAPI device
// (vaQueryConfigProfiles, then each decoding profile's render-target formats and largest picture):
// what AMD's VCN (Mesa's radeonsi) or Intel's engines decode, as ssimd's DecodeCaps. VA-API does
// not say how many engines there are, nor a smallest picture.
#ifndef SSIMD_ENGINE_MEDIA_VAAPI_CAPS_H_
#define SSIMD_ENGINE_MEDIA_VAAPI_CAPS_H_

#include <cstdint>
#include <utility>
#include <vector>

#include "engine/media/decode_caps.h"

extern "C" {
#include <libavutil/buffer.h>
#include <va/va.h>
}

namespace ssimd {

// FFmpeg's decoder for a VA-API decoding profile; nullptr for profiles ssimd does not list
// (encoding-only, stereo, screen content).
const char* VaapiProfileCodec(VAProfile profile);

// The (chroma, bit depth) layouts a profile decodes, given the render-target formats its driver
// reports (VAConfigAttribRTFormat, or VA_ATTRIB_NOT_SUPPORTED when it reports none: then every
// layout the profile defines).
std::vector<std::pair<int, int>> VaapiProfileLayouts(VAProfile profile, uint32_t rt_formats);

// `vaapi_device` is libavutil's AV_HWDEVICE_TYPE_VAAPI device context. A table with
// unknown_reason set when the query fails.
DecodeCaps ProbeVaapiCaps(AVBufferRef* vaapi_device);

}  // namespace ssimd

#endif  // SSIMD_ENGINE_MEDIA_VAAPI_CAPS_H_
