#include "engine/media/decode_caps.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace ssimd {
namespace {

bool SameProfile(const DecodeProfileCaps& a, const DecodeProfileCaps& b) {
  return a.codec == b.codec && a.chroma == b.chroma && a.bit_depth == b.bit_depth;
}

// 0 stands for "no bound": merged with any bound it stays unbounded.
template <typename T>
T WiderBound(T a, T b) {
  return a == 0 || b == 0 ? 0 : std::max(a, b);
}

std::string LayoutText(int chroma, int bit_depth) {
  return absl::StrFormat("%s %d-bit", ChromaText(chroma), bit_depth);
}

}  // namespace

int DecodeCaps::engines() const {
  int most = 0;
  for (const DecodeProfileCaps& p : profiles) most = std::max(most, p.engines);
  return most;
}

void DecodeCaps::Merge(const DecodeProfileCaps& profile) {
  for (DecodeProfileCaps& p : profiles) {
    if (!SameProfile(p, profile)) continue;
    p.max_width = WiderBound(p.max_width, profile.max_width);
    p.max_height = WiderBound(p.max_height, profile.max_height);
    p.max_macroblocks = WiderBound(p.max_macroblocks, profile.max_macroblocks);
    p.min_width = std::min(p.min_width, profile.min_width);
    p.min_height = std::min(p.min_height, profile.min_height);
    p.engines = std::max(p.engines, profile.engines);
    return;
  }
  profiles.push_back(profile);
}

std::string ChromaText(int chroma) {
  switch (chroma) {
    case 420: return "4:2:0";
    case 422: return "4:2:2";
    case 444: return "4:4:4";
    default: return absl::StrCat(chroma);
  }
}

std::string EngineLimitsRefusal(const DecodeCaps& caps, const std::string& backend,
                                const StreamShape& stream) {
  if (!caps.known()) return "";
  std::vector<std::string> codecs;
  std::vector<std::string> layouts;
  const DecodeProfileCaps* match = nullptr;
  for (const DecodeProfileCaps& p : caps.profiles) {
    if (std::find(codecs.begin(), codecs.end(), p.codec) == codecs.end()) {
      codecs.push_back(p.codec);
    }
    if (p.codec != stream.codec) continue;
    layouts.push_back(LayoutText(p.chroma, p.bit_depth));
    if (p.chroma == stream.chroma && p.bit_depth == stream.bit_depth) match = &p;
  }
  if (layouts.empty()) {
    return absl::StrFormat("%s on this device decodes no %s (it decodes: %s)", backend,
                           stream.codec, codecs.empty() ? "nothing" : absl::StrJoin(codecs, ", "));
  }
  const std::string layout = LayoutText(stream.chroma, stream.bit_depth);
  if (match == nullptr) {
    return absl::StrFormat("%s decodes %s only as %s; the stream is %s", backend, stream.codec,
                           absl::StrJoin(layouts, ", "), layout);
  }
  const int w = stream.coded_width;
  const int h = stream.coded_height;
  if ((match->max_width > 0 && w > match->max_width) ||
      (match->max_height > 0 && h > match->max_height)) {
    return absl::StrFormat("%s decodes %s %s up to %dx%d; the stream is %dx%d", backend,
                           stream.codec, layout, match->max_width, match->max_height, w, h);
  }
  if (w < match->min_width || h < match->min_height) {
    return absl::StrFormat("%s decodes %s %s from %dx%d up; the stream is %dx%d", backend,
                           stream.codec, layout, match->min_width, match->min_height, w, h);
  }
  const int64_t macroblocks = static_cast<int64_t>((w + 15) / 16) * ((h + 15) / 16);
  if (match->max_macroblocks > 0 && macroblocks > match->max_macroblocks) {
    return absl::StrFormat(
        "%s decodes %s %s up to %d macroblocks per picture; the stream's %dx%d has %d", backend,
        stream.codec, layout, match->max_macroblocks, w, h, macroblocks);
  }
  return "";
}

}  // namespace ssimd
