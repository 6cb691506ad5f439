#include "server/file_inputs.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "server/request_parsing.h"

namespace ssimd {
absl::StatusOr<std::unique_ptr<VideoInput>> OpenFileInput(
    int fd, const std::string& path, absl::string_view field,
    const std::optional<Geometry>& geometry, std::shared_ptr<HwDecodeDevice> hardware,
    int decoders) {
  const InputKind kind = InputKindForPath(path);
  if (kind != InputKind::kEncoded) {
    absl::StatusOr<std::unique_ptr<VideoInput>> input = OpenRawInput(fd, path, kind, geometry);
    if (!input.ok()) return WithField(input.status(), field);
    return input;
  }
  absl::StatusOr<std::unique_ptr<DecodedInput>> decoded =
      DecodedInput::Open(fd, path, DecodeLimits(), std::move(hardware));
  if (!decoded.ok()) return WithField(decoded.status(), field);
  const Geometry& own = (*decoded)->decoded_geometry();
  if (geometry.has_value() &&
      (geometry->width != own.width || geometry->height != own.height ||
       geometry->bit_depth != own.bit_depth)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: %s is %s (%s) but config.geometry says %s; leave the geometry out for encoded "
        "files",
        field, path, GeometryText(own), (*decoded)->info().codec, GeometryText(*geometry)));
  }
  if (absl::Status split = (*decoded)->DecodeWith(decoders); !split.ok()) {
    return WithField(split, field);
  }
  return std::unique_ptr<VideoInput>(*std::move(decoded));
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
