// Opening the files of ScoreFiles and ScoreLadder requests below the files root (fitting a
// rendition to its source is FitToReference in engine/media/video_input.h). Messages start with
// the request's field name.
#ifndef SSIMD_SERVER_FILE_INPUTS_H_
#define SSIMD_SERVER_FILE_INPUTS_H_

#include <memory>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "engine/media/picture_scaler.h"
#include "engine/media/video_input.h"
#include "engine/features.h"
#include "engine/picture.h"
#include "proto/ssimd/v1/ssimd.pb.h"
#include "server/metrics.h"
#include "server/service_options.h"

namespace ssimd {

// Reads `path` (as the request named it; only used in messages and to choose the reader) from
// `fd`, which it takes over. `geometry` is the request's: required for raw files, checked against
// what .y4m and encoded files say.
// With `hardware`, encoded files are decoded by that device's engine where it can; with
// `decoders` over 1, by that many decoders at once (DecodedInput::DecodeWith).
absl::StatusOr<std::unique_ptr<VideoInput>> OpenFileInput(
    int fd, const std::string& path, absl::string_view field,
    const std::optional<Geometry>& geometry,
    std::shared_ptr<HwDecodeDevice> hardware = nullptr, int decoders = 1);

// Why `input` was decoded on the CPU although --hw_decode asked for the GPU's engine
// (DecodeFallbackLabel), or empty: for raw files, without --hw_decode, or when the engine decodes.
std::string DecodeFallbackReason(const VideoInput& input, const ServiceOptions& options,
                                 const HwDecodeDevice* hardware);

absl::StatusOr<ScalerChoice> ParseUpscale(const v1::UpscaleOptions& upscale,
                                          absl::string_view field);

// The decode and scale stages of the frame `input` read last (none for raw files).
void RecordReadStages(const VideoInput& input, const FeatureSet& features,
                      ServiceMetrics& metrics);

}  // namespace ssimd

#endif  // SSIMD_SERVER_FILE_INPUTS_H_
