// The frames transport: both videos are read (and, when encoded, decoded and upscaled) here and
// their luma planes streamed to the server (ScoreClip), with their chroma planes where a feature
// reads chroma (raw .yuv and .y4m files only), resumed on another server when a stream is cut.
// The transport of last resort: it sends raw pixels, hundreds of times the bytes of an encoded
// rendition.
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
