#include "engine/media/vaapi_caps.h"

#include <algorithm>
#include <string>

#include "absl/strings/str_format.h"

extern "C" {
#include <libavutil/hwcontext.h>
#include <libavutil/hwcontext_vaapi.h>
}

namespace ssimd {
namespace {

struct VaapiProfile {
  VAProfile profile;
  const char* codec;  // FFmpeg's decoder
  uint32_t layouts;   // VA_RT_FORMAT_* bits the profile defines
};

constexpr uint32_t k420 = VA_RT_FORMAT_YUV420;
constexpr VaapiProfile kProfiles[] = {
    {VAProfileMPEG2Simple, "mpeg2video", k420},
    {VAProfileMPEG2Main, "mpeg2video", k420},
    {VAProfileMPEG4Simple, "mpeg4", k420},
    {VAProfileMPEG4AdvancedSimple, "mpeg4", k420},
    {VAProfileMPEG4Main, "mpeg4", k420},
    {VAProfileH264ConstrainedBaseline, "h264", k420},
    {VAProfileH264Main, "h264", k420},
    {VAProfileH264High, "h264", k420},
    {VAProfileVC1Advanced, "vc1", k420},
    {VAProfileVC1Simple, "wmv3", k420},
    {VAProfileVC1Main, "wmv3", k420},
    {VAProfileJPEGBaseline, "mjpeg", k420 | VA_RT_FORMAT_YUV422 | VA_RT_FORMAT_YUV444},
    {VAProfileVP8Version0_3, "vp8", k420},
    {VAProfileHEVCMain, "hevc", k420},
    {VAProfileHEVCMain10, "hevc", VA_RT_FORMAT_YUV420_10},
    {VAProfileHEVCMain12, "hevc", VA_RT_FORMAT_YUV420_12},
    {VAProfileHEVCMain422_10, "hevc", VA_RT_FORMAT_YUV422_10},
    {VAProfileHEVCMain422_12, "hevc", VA_RT_FORMAT_YUV422_12},
    {VAProfileHEVCMain444, "hevc", VA_RT_FORMAT_YUV444},
    {VAProfileHEVCMain444_10, "hevc", VA_RT_FORMAT_YUV444_10},
    {VAProfileHEVCMain444_12, "hevc", VA_RT_FORMAT_YUV444_12},
    {VAProfileVP9Profile0, "vp9", k420},
    {VAProfileVP9Profile1, "vp9", VA_RT_FORMAT_YUV422 | VA_RT_FORMAT_YUV444},
    {VAProfileVP9Profile2, "vp9", VA_RT_FORMAT_YUV420_10 | VA_RT_FORMAT_YUV420_12},
    {VAProfileVP9Profile3, "vp9",
     VA_RT_FORMAT_YUV422_10 | VA_RT_FORMAT_YUV444_10 | VA_RT_FORMAT_YUV422_12 |
         VA_RT_FORMAT_YUV444_12},
    {VAProfileAV1Profile0, "av1", k420 | VA_RT_FORMAT_YUV420_10},
    {VAProfileAV1Profile1, "av1", VA_RT_FORMAT_YUV444 | VA_RT_FORMAT_YUV444_10},
};

struct Layout {
  uint32_t rt_format;
  int chroma;
  int depth;
};
constexpr Layout kLayouts[] = {
    {VA_RT_FORMAT_YUV420, 420, 8},     {VA_RT_FORMAT_YUV420_10, 420, 10},
    {VA_RT_FORMAT_YUV420_12, 420, 12}, {VA_RT_FORMAT_YUV422, 422, 8},
    {VA_RT_FORMAT_YUV422_10, 422, 10}, {VA_RT_FORMAT_YUV422_12, 422, 12},
    {VA_RT_FORMAT_YUV444, 444, 8},     {VA_RT_FORMAT_YUV444_10, 444, 10},
    {VA_RT_FORMAT_YUV444_12, 444, 12},
};

const VaapiProfile* FindProfile(VAProfile profile) {
  for (const VaapiProfile& p : kProfiles) {
    if (p.profile == profile) return &p;
  }
  return nullptr;
}

DecodeCaps Unknown(std::string reason) {
  DecodeCaps caps;
  caps.unknown_reason = std::move(reason);
  return caps;
}

int Bound(const VAConfigAttrib& attribute) {
  return attribute.value == VA_ATTRIB_NOT_SUPPORTED ? 0 : static_cast<int>(attribute.value);
}

}  // namespace

const char* VaapiProfileCodec(VAProfile profile) {
  const VaapiProfile* p = FindProfile(profile);
  return p == nullptr ? nullptr : p->codec;
}

std::vector<std::pair<int, int>> VaapiProfileLayouts(VAProfile profile, uint32_t rt_formats) {
  std::vector<std::pair<int, int>> layouts;
  const VaapiProfile* p = FindProfile(profile);
  if (p == nullptr) return layouts;
  const uint32_t reported = rt_formats == VA_ATTRIB_NOT_SUPPORTED ? p->layouts : rt_formats;
  for (const Layout& layout : kLayouts) {
    if ((p->layouts & reported & layout.rt_format) != 0) {
      layouts.emplace_back(layout.chroma, layout.depth);
    }
  }
  return layouts;
}

DecodeCaps ProbeVaapiCaps(AVBufferRef* vaapi_device) {
  if (vaapi_device == nullptr) return Unknown("no VA-API device context");
  const auto* device = reinterpret_cast<const AVHWDeviceContext*>(vaapi_device->data);
  if (device->type != AV_HWDEVICE_TYPE_VAAPI) return Unknown("not a VA-API device context");
  VADisplay display = static_cast<const AVVAAPIDeviceContext*>(device->hwctx)->display;

  const int most = vaMaxNumProfiles(display);
  if (most <= 0) return Unknown("the VA-API driver lists no profiles");
  std::vector<VAProfile> profiles(static_cast<size_t>(most));
  int count = 0;
  if (const VAStatus rc = vaQueryConfigProfiles(display, profiles.data(), &count);
      rc != VA_STATUS_SUCCESS) {
    return Unknown(absl::StrFormat("vaQueryConfigProfiles failed: %s", vaErrorStr(rc)));
  }
  profiles.resize(static_cast<size_t>(count));
  std::vector<VAEntrypoint> entrypoints(
      static_cast<size_t>(std::max(1, vaMaxNumEntrypoints(display))));
  DecodeCaps caps;
  for (const VAProfile profile : profiles) {
    const char* codec = VaapiProfileCodec(profile);
    if (codec == nullptr) continue;
    int entrypoint_count = 0;
    if (vaQueryConfigEntrypoints(display, profile, entrypoints.data(), &entrypoint_count) !=
        VA_STATUS_SUCCESS) {
      continue;
    }
    bool decodes = false;
    for (int i = 0; i < entrypoint_count; ++i) decodes |= entrypoints[i] == VAEntrypointVLD;
    if (!decodes) continue;  // an encoding-only profile
    VAConfigAttrib attributes[3] = {{VAConfigAttribRTFormat, 0},
                                    {VAConfigAttribMaxPictureWidth, 0},
                                    {VAConfigAttribMaxPictureHeight, 0}};
    if (vaGetConfigAttributes(display, profile, VAEntrypointVLD, attributes, 3) !=
        VA_STATUS_SUCCESS) {
      for (VAConfigAttrib& a : attributes) a.value = VA_ATTRIB_NOT_SUPPORTED;
    }
    for (const auto& [chroma, depth] : VaapiProfileLayouts(profile, attributes[0].value)) {
      DecodeProfileCaps entry;
      entry.codec = codec;
      entry.chroma = chroma;
      entry.bit_depth = depth;
      entry.max_width = Bound(attributes[1]);
      entry.max_height = Bound(attributes[2]);
      caps.Merge(entry);
    }
  }
  return caps;
}

}  // namespace ssimd
