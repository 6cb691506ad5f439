// The frames transport: both videos are read (and, when encoded, decoded and upscaled) here and
// their luma planes streamed to the server (ScoreClip), with their chroma planes where a feature
// reads chroma (raw .yuv and .y4m files only), resumed on another server when a stream is cut.
// The transport of last resort: it sends raw pixels, hundreds of times the bytes of an encoded
// rendition. Decoding needs FFmpeg's libraries, which take most of a command's start-up time, so
// `ssimd-score` is built without them and runs `ssimd-score-frames` (the same command with them,
// docs/adr/0089) once a run settles on this transport.
#ifndef SSIMD_CLIENT_FRAMES_TRANSPORT_H_
#define SSIMD_CLIENT_FRAMES_TRANSPORT_H_

#include <cstdio>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "client/cli_options.h"
#include "client/ssimd_client.h"
#include "engine/picture.h"
#include "proto/ssimd/v1/ssimd.pb.h"

namespace ssimd {

// Whether this program decodes local files itself (ScoreLocalFrames works), or leaves them to
// ssimd-score-frames (client/local_decoding_program.h).
bool DecodesLocalFiles();

// Scores `distorted` against `reference` (local files) with `config`, skipping and counting
// frames as --frame_skip_ref/--frame_skip_dist/--frame_cnt say. Progress goes to `err` when
// `show_progress`.
absl::StatusOr<ClipReport> ScoreLocalFrames(SsimdClient& client, const CliOptions& options,
                                            const std::string& reference,
                                            const std::string& distorted,
                                            const std::optional<Geometry>& raw_geometry,
                                            v1::ClipConfig config, std::FILE* err,
                                            bool show_progress);

}  // namespace ssimd

#endif  // SSIMD_CLIENT_FRAMES_TRANSPORT_H_
