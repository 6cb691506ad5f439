#include "engine/media/decode_error.h"

#include "absl/strings/cord.h"

namespace ssimd {
namespace {

constexpr absl::string_view kPayloadUrl = "type.googleapis.com/ssimd.DecodeErrorKind";

}  // namespace

absl::string_view DecodeErrorLabel(DecodeErrorKind kind) {
  switch (kind) {
    case DecodeErrorKind::kNotMedia:
      return "not_media";
    case DecodeErrorKind::kTruncated:
      return "truncated";
    case DecodeErrorKind::kNoVideoStream:
      return "no_video_stream";
    case DecodeErrorKind::kUnsupportedCodec:
      return "unsupported_codec";
    case DecodeErrorKind::kUnsupportedFormat:
      return "unsupported_format";
    case DecodeErrorKind::kOverLimits:
      return "over_limits";
    case DecodeErrorKind::kCorruptStream:
      return "corrupt_stream";
    case DecodeErrorKind::kStreamChange:
      return "stream_change";
  }
  return "unknown";
}

absl::Status DecodeError(DecodeErrorKind kind, absl::string_view message) {
  return WithDecodeErrorKind(absl::InvalidArgumentError(message), kind);
}

absl::Status WithDecodeErrorKind(absl::Status status, DecodeErrorKind kind) {
  if (!status.ok()) status.SetPayload(kPayloadUrl, absl::Cord(DecodeErrorLabel(kind)));
  return status;
}

std::optional<std::string> DecodeErrorLabelOf(const absl::Status& status) {
  const auto payload = status.GetPayload(kPayloadUrl);  // absl::optional in this Abseil
  if (!payload.has_value()) return std::nullopt;
  return std::string(*payload);
}

}  // namespace ssimd
