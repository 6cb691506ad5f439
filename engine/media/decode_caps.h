// What a device's video decoding engines take: for each codec, chroma layout and bit depth, the
// largest and smallest coded picture and how many engines decode it. Probed once when the device
// opens (NVDEC: engine/media/nvdec_caps.h, VA-API: engine/media/vaapi_caps.h); GetCapabilities
// lists it, and a stream outside it is decoded on the CPU before the engine is tried, with a
// reason that says which limit it crossed. No FFmpeg here: the server and tests read it as data.
#ifndef SSIMD_ENGINE_MEDIA_DECODE_CAPS_H_
#define SSIMD_ENGINE_MEDIA_DECODE_CAPS_H_

#include <cstdint>
#include <string>
#include <vector>

namespace ssimd {

struct DecodeProfileCaps {
  std::string codec;  // FFmpeg's decoder name: "h264", "hevc", "vp9", "av1", ...
  int chroma = 420;   // 420, 422 or 444
  int bit_depth = 8;
  // Coded picture bounds, in samples; 0 where the API does not state one.
  int max_width = 0;
  int max_height = 0;
  int min_width = 0;
  int min_height = 0;
  // 16x16 macroblocks per picture; 0 where the engine states no bound beyond width and height.
  int64_t max_macroblocks = 0;
  // Engines on the device that decode this profile; 0 where the API does not say (VA-API).
  int engines = 0;
};

struct DecodeCaps {
  // One entry per (codec, chroma, bit depth) the engines decode, in probing order.
  std::vector<DecodeProfileCaps> profiles;
  // Why the table could not be read (the probe failed); empty when it was. An unknown table
  // refuses nothing ahead of decoding: libavcodec then finds out when the stream starts.
  std::string unknown_reason;

  bool known() const { return unknown_reason.empty(); }
  // The most engines any profile reports; 0 where unknown.
  int engines() const;
  // Adds `profile`, or widens the entry of the same codec, chroma and depth to the larger bounds
  // (two VA-API profiles of one codec, such as H.264 Main and High, give one entry).
  void Merge(const DecodeProfileCaps& profile);
};

// A stream as the decoder sees it when choosing where to decode.
struct StreamShape {
  std::string codec;  // FFmpeg's decoder name
  int chroma = 420;
  int bit_depth = 8;
  int coded_width = 0;
  int coded_height = 0;
};

// "4:2:0", "4:2:2", "4:4:4" (or the number itself for anything else).
std::string ChromaText(int chroma);

// Empty when `caps` lets the engines decode `stream` (or the table is unknown); otherwise why
// not, in words a user can act on, e.g. "nvdec decodes h264 4:2:0 8-bit up to 4096x4096; the
// stream is 8192x4320". `backend` names the engines ("nvdec", "vaapi").
std::string EngineLimitsRefusal(const DecodeCaps& caps, const std::string& backend,
                                const StreamShape& stream);

}  // namespace ssimd

#endif  // SSIMD_ENGINE_MEDIA_DECODE_CAPS_H_
