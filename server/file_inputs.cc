#include "server/file_inputs.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "server/request_parsing.h"

namespace ssimd {
namespace {

std::string SizeText(const Geometry& g) {
  return absl::StrFormat("%dx%d %d-bit", g.width, g.height, g.bit_depth);
}

}  // namespace

absl::StatusOr<std::unique_ptr<VideoInput>> OpenFileInput(
    int fd, const std::string& path, absl::string_view field,
    const std::optional<Geometry>& geometry) {
  const InputKind kind = InputKindForPath(path);
  if (kind != InputKind::kEncoded) {
    absl::StatusOr<std::unique_ptr<VideoInput>> input = OpenRawInput(fd, path, kind, geometry);
    if (!input.ok()) return WithField(input.status(), field);
    return input;
  }
  absl::StatusOr<std::unique_ptr<DecodedInput>> decoded =
      DecodedInput::Open(fd, path, DecodeLimits());
  if (!decoded.ok()) return WithField(decoded.status(), field);
  const Geometry& own = (*decoded)->decoded_geometry();
  if (geometry.has_value() &&
      (geometry->width != own.width || geometry->height != own.height ||
       geometry->bit_depth != own.bit_depth)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: %s is %s (%s) but config.geometry says %s; leave the geometry out for encoded "
        "files",
        field, path, SizeText(own), (*decoded)->info().codec, SizeText(*geometry)));
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

absl::Status FitToReference(const VideoInput& reference, absl::string_view reference_field,
                            VideoInput& distorted, absl::string_view distorted_field,
                            const ScalerChoice& scaler) {
  const Geometry& ref = reference.geometry();
  const Geometry& dis = distorted.geometry();
  auto* decoded = dynamic_cast<DecodedInput*>(&distorted);
  if (decoded == nullptr && (ref.width != dis.width || ref.height != dis.height ||
                             ref.bit_depth != dis.bit_depth)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: %s, but %s is %s; raw and .y4m files are not scaled, so both files must have the "
        "same luma size and bit depth (encoded renditions are upscaled)",
        distorted_field, SizeText(dis), reference_field, SizeText(ref)));
  }
  if (ref.bit_depth != dis.bit_depth) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: %s is %d-bit but %s (%s) is %d-bit; score renditions against a source of the same "
        "bit depth",
        distorted_field, distorted.name(), dis.bit_depth, reference_field, reference.name(),
        ref.bit_depth));
  }
  const FrameRate ref_rate = reference.frame_rate();
  const FrameRate dis_rate = distorted.frame_rate();
  if (ref_rate.known() && dis_rate.known() && !SameFrameRate(ref_rate, dis_rate)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: %s runs at %s frames per second but %s (%s) at %s; frames can only be paired "
        "between files of the same frame rate",
        distorted_field, distorted.name(), FrameRateText(dis_rate), reference_field,
        reference.name(), FrameRateText(ref_rate)));
  }
  if (decoded != nullptr) decoded->ScaleTo(ref, scaler);
  return absl::OkStatus();
}

}  // namespace ssimd
