// The ffmpeg command, where this machine has one: it encodes the ladder's renditions and the
// encoded decode bomb at start-up, and decodes the renditions the way the server must (the bytes
// the expected scores are computed from). GPU machines have no ffmpeg; they get the files made
// here (ladder_soak.sh --prepare).
#ifndef SSIMD_TOOLS_FAULT_LOAD_FFMPEG_COMMAND_H_
#define SSIMD_TOOLS_FAULT_LOAD_FFMPEG_COMMAND_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"

namespace ssimd::fault_load {

// The path of an executable `ffmpeg` on PATH; empty when there is none.
std::string FindFfmpeg();

// One encoded rendition: its container, its size and the encoder's arguments.
struct EncodeSpec {
  std::string muxer;  // "mp4", "matroska", "webm"
  int width = 0;
  int height = 0;
  std::vector<std::string> codec_args;  // "-c:v", "libx264", ...
};

// The command that encodes `source` (a .y4m of `source_width` x `source_height`) into `out` as
// `spec` says, scaled with bicubic where the sizes differ, 4:2:0 8-bit.
std::vector<std::string> EncodeArgv(const std::string& ffmpeg, const std::string& source,
                                    int source_width, int source_height, const EncodeSpec& spec,
                                    const std::string& out);

// The command that decodes `rendition` to raw 4:2:0 8-bit pictures of the source's size in
// `out_yuv`, upscaled the way the server must (bicubic with accurate_rnd: libswscale's C
// rounding, the same bytes on every CPU) where `rendition_width` x `rendition_height` differ.
std::vector<std::string> DecodeToSourceSizeArgv(const std::string& ffmpeg,
                                                const std::string& rendition, int rendition_width,
                                                int rendition_height, int source_width,
                                                int source_height, const std::string& out_yuv);

// Runs `argv` (argv[0] a path) with stdin from /dev/null and its output in `log_path`; killed
// after `timeout`. The error quotes the end of the log.
absl::Status RunCommand(const std::vector<std::string>& argv, absl::Duration timeout,
                        const std::string& log_path);

}  // namespace ssimd::fault_load

#endif  // SSIMD_TOOLS_FAULT_LOAD_FFMPEG_COMMAND_H_
