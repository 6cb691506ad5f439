// Opening the files of ScoreFiles and ScoreLadder requests below the files root (fitting a
// rendition to its source is FitToReference in engine/media/video_input.h). Messages start with
// the request's field name.
#ifndef SSIMD_SERVER_FILE_INPUTS_H_
#define SSIMD_SERVER_FILE_INPUTS_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "engine/media/picture_memory_budget.h"
#include "engine/media/picture_scaler.h"
#include "engine/media/video_input.h"
#include "engine/features.h"
#include "engine/picture.h"
#include "proto/ssimd/v1/ssimd.pb.h"
#include "server/metrics.h"
#include "server/service_options.h"

namespace ssimd {

// How one input of a call is opened and what it reserves of the server's budget for decoded
// pictures (docs/adr/0084).
struct InputOpening {
  // With `hardware`, encoded files are decoded by that device's engine where it can; with
  // `decoders` over 1, by that many decoders at once (DecodedInput::DecodeWith).
  std::shared_ptr<HwDecodeDevice> hardware;
  int decoders = 1;
  // Pictures over this many pixels are refused before any is decoded (--max_picture_pixels).
  int64_t max_picture_pixels = kDefaultMaxPicturePixels;
  // Null: nothing is reserved. Else the input reserves what it may hold before its first frame
  // is decoded, and holds it until it is destroyed (VideoInput::HoldReservation).
  PictureMemoryBudget* budget = nullptr;
  // What the call's inputs opened before hold of the budget; each reservation adds to it.
  int64_t* held_by_call = nullptr;
  // True once the call has ended: a wait for memory then stops with CANCELLED.
  std::function<bool()> call_ended;
  // A rendition's pictures are brought to this geometry (its reference's, FitToReference).
  std::optional<Geometry> scaled_to;
  // Luma planes of the scored size the call holds of this input at once besides the input's own
  // pictures (read ahead, and being scored), for a scored geometry.
  std::function<int(const Geometry&)> luma_planes;
  // Whether those planes come with their chroma (a metric reads it: VideoInput::KeepChroma).
  bool with_chroma = false;
  // Counts refusals for the per-picture limit; may be null.
  ServiceMetrics* metrics = nullptr;
};

// Reads `path` (as the request named it; only used in messages and to choose the reader) from
// `fd`, which it takes over. `geometry` is the request's: required for raw files, checked against
// what .y4m and encoded files say. A picture over opening.max_picture_pixels, or a reservation
// that does not fit the budget, is RESOURCE_EXHAUSTED naming the picture's size and the limit or
// the budget and the flag that sets it.
// An encoded file comes as the DecodedInput it is too (OpenedInput::decoded), for the caller to
// fit it to its reference and settle where its pictures go before it is read.
absl::StatusOr<OpenedInput> OpenFileInput(int fd, const std::string& path,
                                          absl::string_view field,
                                          const std::optional<Geometry>& geometry,
                                          const InputOpening& opening);

// The same without a budget, with the default per-picture limit.
absl::StatusOr<OpenedInput> OpenFileInput(
    int fd, const std::string& path, absl::string_view field,
    const std::optional<Geometry>& geometry,
    std::shared_ptr<HwDecodeDevice> hardware = nullptr, int decoders = 1);

// What `input`, opened from `path`, reserves of the budget: its own pictures at their most
// (DecodedInput::PictureMemoryBytes, RawPictureMemoryBytes) and the luma planes the call holds of
// it. `scaled_to` as in InputOpening.
int64_t InputMemoryBytes(const OpenedInput& input, const InputOpening& opening);

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
