#include "server/file_inputs.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/status_macros.h"
#include "engine/media/decode_error.h"
#include "server/logging.h"
#include "server/request_parsing.h"

namespace ssimd {
namespace {

// What sets the per-picture limit, named in messages.
constexpr char kMaxPixelsFlag[] = "--max_picture_pixels";

// "bomb.mkv (hevc, 16000x16000 8-bit pictures)", for messages about an input's memory.
std::string PicturesText(const OpenedInput& opened) {
  const VideoInput& input = *opened.input;
  if (opened.decoded == nullptr) {
    return absl::StrFormat("%s (%s pictures)", input.name(), GeometryText(input.geometry()));
  }
  return absl::StrFormat("%s (%s, %s pictures)", input.name(), opened.decoded->info().codec,
                         GeometryText(opened.decoded->decoded_geometry()));
}

// Reserves `bytes` for `input` and hands the reservation to it; RESOURCE_EXHAUSTED or CANCELLED
// naming the field, the input and its picture size otherwise.
absl::Status Reserve(const OpenedInput& input, absl::string_view field,
                     const InputOpening& opening, int64_t bytes) {
  if (opening.budget == nullptr) return absl::OkStatus();
  PictureMemoryBudget::Request request;
  request.bytes = bytes;
  request.held_by_call = opening.held_by_call != nullptr ? *opening.held_by_call : 0;
  request.cancelled = opening.call_ended;
  absl::StatusOr<PictureMemoryBudget::Reservation> reservation =
      opening.budget->Reserve(request);
  if (!reservation.ok()) {
    const std::string message = absl::StrFormat("%s: %s %s", field, PicturesText(input),
                                                reservation.status().message());
    if (absl::IsResourceExhausted(reservation.status())) {
      LogEvent(spdlog::level::warn, "input refused: decoded pictures over the memory budget",
               {{"field", std::string(field)},
                {"bytes", absl::StrCat(bytes)},
                {"reason", message}});
    }
    return absl::Status(reservation.status().code(), message);
  }
  if (opening.held_by_call != nullptr) *opening.held_by_call += bytes;
  input.input->HoldReservation(*std::move(reservation));
  return absl::OkStatus();
}

// A refusal for the per-picture limit is logged and counted where it happens, before any
// reservation.
absl::Status NotePictureLimit(absl::Status status, absl::string_view field,
                              const InputOpening& opening) {
  if (DecodeErrorLabelOf(status) == DecodeErrorLabel(DecodeErrorKind::kOverLimits)) {
    LogEvent(spdlog::level::warn, "input refused: picture over the size limit",
             {{"field", std::string(field)}, {"reason", std::string(status.message())}});
    if (opening.metrics != nullptr) opening.metrics->RecordDecodedMemoryRefusal("picture_pixels");
  }
  return WithField(status, field);
}

}  // namespace

int64_t InputMemoryBytes(const OpenedInput& input, const InputOpening& opening) {
  const DecodedInput* decoded = input.decoded;
  Geometry scored = input.input->geometry();
  int64_t bytes = 0;
  if (decoded == nullptr) {
    bytes = RawPictureMemoryBytes(scored);
  } else {
    const Geometry& own = decoded->decoded_geometry();
    bool scaled = false;
    if (opening.scaled_to.has_value()) {
      scored = *opening.scaled_to;
      scaled = scored.width != own.width || scored.height != own.height ||
               scored.chroma != own.chroma || scored.bit_depth != own.bit_depth;
    }
    bytes = decoded->PictureMemoryBytes(opening.decoders, scaled, scored);
  }
  if (opening.luma_planes) {
    const size_t plane_bytes = opening.with_chroma ? FrameBytes(scored) : LumaBytes(scored);
    bytes += static_cast<int64_t>(opening.luma_planes(scored)) * static_cast<int64_t>(plane_bytes);
  }
  return bytes;
}

absl::StatusOr<OpenedInput> OpenFileInput(int fd, const std::string& path,
                                          absl::string_view field,
                                          const std::optional<Geometry>& geometry,
                                          const InputOpening& opening) {
  DecodeLimits limits;
  limits.max_pixels = opening.max_picture_pixels;
  limits.max_pixels_source = kMaxPixelsFlag;
  const InputKind kind = InputKindForPath(path);
  if (kind != InputKind::kEncoded) {
    absl::StatusOr<std::unique_ptr<VideoInput>> input =
        OpenRawInput(fd, path, kind, geometry, limits);
    if (!input.ok()) return NotePictureLimit(input.status(), field, opening);
    OpenedInput opened = OpenedInput::Raw(*std::move(input));
    SSIMD_RETURN_IF_ERROR(Reserve(opened, field, opening, InputMemoryBytes(opened, opening)));
    return opened;
  }
  absl::StatusOr<std::unique_ptr<DecodedInput>> decoded =
      DecodedInput::Open(fd, path, limits, opening.hardware);
  if (!decoded.ok()) return NotePictureLimit(decoded.status(), field, opening);
  const Geometry& own = (*decoded)->decoded_geometry();
  if (geometry.has_value() &&
      (geometry->width != own.width || geometry->height != own.height ||
       geometry->bit_depth != own.bit_depth)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: %s is %s (%s) but config.geometry says %s; leave the geometry out for encoded "
        "files",
        field, path, GeometryText(own), (*decoded)->info().codec, GeometryText(*geometry)));
  }
  OpenedInput opened = OpenedInput::Decoded(*std::move(decoded));
  // Before any decoder but the one that probed the stream runs: DecodeWith starts the others.
  SSIMD_RETURN_IF_ERROR(Reserve(opened, field, opening, InputMemoryBytes(opened, opening)));
  if (absl::Status split = opened.decoded->DecodeWith(opening.decoders); !split.ok()) {
    return WithField(split, field);
  }
  return opened;
}

absl::StatusOr<OpenedInput> OpenFileInput(
    int fd, const std::string& path, absl::string_view field,
    const std::optional<Geometry>& geometry, std::shared_ptr<HwDecodeDevice> hardware,
    int decoders) {
  InputOpening opening;
  opening.hardware = std::move(hardware);
  opening.decoders = decoders;
  return OpenFileInput(fd, path, field, geometry, opening);
}

absl::StatusOr<ScalerChoice> ParseUpscale(const v1::UpscaleOptions& upscale,
                                          absl::string_view field) {
  ScalerChoice choice;
  choice.accurate_rounding = upscale.accurate_rounding();
  switch (upscale.scaler()) {
    case v1::SCALER_BICUBIC: choice.kind = ScalerKind::kBicubic; break;
    case v1::SCALER_BILINEAR: choice.kind = ScalerKind::kBilinear; break;
    case v1::SCALER_LANCZOS: choice.kind = ScalerKind::kLanczos; break;
    case v1::SCALER_SPLINE: choice.kind = ScalerKind::kSpline; break;
    case v1::SCALER_NEIGHBOR: choice.kind = ScalerKind::kNeighbor; break;
    default:
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s.scaler: unknown value %d; expected SCALER_BICUBIC, _BILINEAR, _LANCZOS, _SPLINE "
          "or _NEIGHBOR",
          field, upscale.scaler()));
  }
  return choice;
}

void RecordReadStages(const VideoInput& input, const FeatureSet& features,
                      ServiceMetrics& metrics) {
  const ReadTimes times = input.last_read_times();
  metrics.RecordInputStages(features, times.decode_seconds, times.scale_seconds);
  if (times.decode_seconds.has_value()) metrics.RecordDecodedFrame(input.decode_backend());
}

std::string DecodeFallbackReason(const VideoInput& input, const ServiceOptions& options,
                                 const HwDecodeDevice* hardware) {
  if (options.hw_decode_api.empty() || input.decode_backend().empty()) return "";
  if (hardware == nullptr) return DecodeFallbackLabel(DecodeFallback::kNoDevice);
  const DecodeFallback fallback = input.decode_fallback();
  return fallback == DecodeFallback::kNone ? "" : DecodeFallbackLabel(fallback);
}

}  // namespace ssimd
