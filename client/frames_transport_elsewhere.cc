// The frames transport of a program built without FFmpeg (ssimd-score): it decodes nothing, and
// its caller runs ssimd-score-frames instead (client/local_decoding_program.h).
#include "client/frames_transport.h"

namespace ssimd {

bool DecodesLocalFiles() { return false; }

absl::StatusOr<ClipReport> ScoreLocalFrames(SsimdClient&, const CliOptions&, const std::string&,
                                            const std::string&, const std::optional<Geometry>&,
                                            v1::ClipConfig, std::FILE*, bool) {
  return absl::FailedPreconditionError(
      "this program decodes no local files; ssimd-score-frames does");
}

}  // namespace ssimd
