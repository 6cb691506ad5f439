// Why a file could not be read as video, as a short label that rides on the error's status (a
// payload), so that the server can count decoder errors by kind without parsing messages. The
// message stays the user's explanation; the kind is for ssimd_decode_errors_total{kind}.
#ifndef SSIMD_ENGINE_MEDIA_DECODE_ERROR_H_
#define SSIMD_ENGINE_MEDIA_DECODE_ERROR_H_

#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace ssimd {

enum class DecodeErrorKind {
  kNotMedia,            // no container FFmpeg recognises
  kTruncated,           // the container ends or breaks before its streams or packets do
  kNoVideoStream,       // audio only, subtitles, ...
  kUnsupportedCodec,    // no decoder in this build, or it refuses the stream's parameters
  kUnsupportedFormat,   // decoded, but a pixel format or size ssimd does not score
  kOverLimits,          // declared or decoded size over the server's limits
  kCorruptStream,       // the bitstream is damaged (reported, never concealed)
  kStreamChange,        // the size or pixel format changes midway
};

// The label: "not_media", "truncated", "no_video_stream", "unsupported_codec",
// "unsupported_format", "over_limits", "corrupt_stream", "stream_change".
absl::string_view DecodeErrorLabel(DecodeErrorKind kind);

// INVALID_ARGUMENT with `message`, tagged with `kind`.
absl::Status DecodeError(DecodeErrorKind kind, absl::string_view message);

// `status` with `kind` attached (its code and message unchanged).
absl::Status WithDecodeErrorKind(absl::Status status, DecodeErrorKind kind);

// The label attached to `status`, if any.
std::optional<std::string> DecodeErrorLabelOf(const absl::Status& status);

}  // namespace ssimd

#endif  // SSIMD_ENGINE_MEDIA_DECODE_ERROR_H_
