// What kind of video file a path names, by its extension: the readers (engine/media/video_input.h)
// and the clients' choice of transport (client/transport.h) decide from it. No FFmpeg needed.
#ifndef SSIMD_ENGINE_IO_INPUT_KIND_H_
#define SSIMD_ENGINE_IO_INPUT_KIND_H_

#include "absl/strings/string_view.h"

namespace ssimd {

enum class InputKind {
  kRawYuv,   // ".yuv" or ".raw": geometry from the caller
  kY4m,      // ".y4m"
  kEncoded,  // anything else: a container FFmpeg reads
};

// By the name's extension, in any case.
InputKind InputKindForPath(absl::string_view path);

}  // namespace ssimd

#endif  // SSIMD_ENGINE_IO_INPUT_KIND_H_
