// What a video file is, besides its pictures: what a ladder report shows next to a rendition's
// scores (codec, size, duration, hence bitrate).
#ifndef SSIMD_ENGINE_MEDIA_MEDIA_INFO_H_
#define SSIMD_ENGINE_MEDIA_MEDIA_INFO_H_

#include <cstdint>
#include <optional>
#include <string>

namespace ssimd {

struct MediaInfo {
  // FFmpeg's codec name ("h264", "hevc", "vp9", ...); "rawvideo" for .yuv and .y4m files.
  std::string codec = "rawvideo";
  // The container's own duration where it states one; never estimated from the bitrate, since
  // the bitrate is what callers derive from it. Raw and .y4m files have none.
  std::optional<double> duration_seconds;
  // The file's size in bytes; 0 where it cannot be known (a pipe).
  uint64_t size_bytes = 0;
  // The luma size stored in the file, before any scaling to a reference.
  int width = 0;
  int height = 0;
};

}  // namespace ssimd

#endif  // SSIMD_ENGINE_MEDIA_MEDIA_INFO_H_
