// The YUV4MPEG2 (.y4m) stream header: the one line before the first frame that gives the size,
// frame rate and chroma layout.
#ifndef SSIMD_ENGINE_IO_Y4M_HEADER_H_
#define SSIMD_ENGINE_IO_Y4M_HEADER_H_

#include <string>
#include "absl/strings/string_view.h"

#include "absl/status/statusor.h"
#include "engine/picture.h"

namespace ssimd {

struct Y4mHeader {
  Geometry geometry;
  std::string frame_rate;  // "num:den" as written, empty when absent
};

// Parses the header line without its '\n', e.g. "YUV4MPEG2 W1920 H1080 F24:1 Ip A1:1 C420p10".
// Width and height are required; a missing C tag means 4:2:0 at 8 bits, as in every writer.
// Accepted C tags: 420, 420jpeg, 420mpeg2, 420paldv, 422, 444, mono, each optionally followed by
// p10, p12 or p16 (mono10/12/16 for grey). INVALID_ARGUMENT names the bad tag.
absl::StatusOr<Y4mHeader> ParseY4mHeader(absl::string_view line);

}  // namespace ssimd

#endif  // SSIMD_ENGINE_IO_Y4M_HEADER_H_
