// Pairs the frames of two inputs in presentation order, after the start offsets, until the
// shorter ends (or a frame count is reached); then counts the longer one's unmatched frames.
#ifndef SSIMD_ENGINE_MEDIA_FRAME_PAIRING_H_
#define SSIMD_ENGINE_MEDIA_FRAME_PAIRING_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "engine/media/video_input.h"

namespace ssimd {

struct PairingOptions {
  uint64_t frame_count = 0;  // pairs to take; 0 = until an input ends
  // Inputs of different lengths (within frame_count) are INVALID_ARGUMENT.
  bool require_equal_length = false;
};

struct UnmatchedFrames {
  uint64_t reference = 0;
  uint64_t distorted = 0;
};

class FramePairer {
 public:
  // Both inputs must outlive the pairer and already be past their start offsets. Next reads one
  // after the other: inputs that should be read at the same time are ReadAheadInputs
  // (engine/media/read_ahead_input.h).
  FramePairer(VideoInput* reference, VideoInput* distorted, const PairingOptions& options);

  // The next pair's planes (VideoInput::ReadPlanes) into *reference / *distorted; false once
  // pairing is over (then unmatched() is final). Errors name the file and frame
  // (INVALID_ARGUMENT).
  absl::StatusOr<bool> Next(std::string* reference, std::string* distorted);

  uint64_t pairs() const { return pairs_; }
  const UnmatchedFrames& unmatched() const { return unmatched_; }

 private:
  absl::StatusOr<bool> Finish(bool reference_ended, bool distorted_ended);

  VideoInput* const reference_;
  VideoInput* const distorted_;
  const PairingOptions options_;
  uint64_t pairs_ = 0;
  bool done_ = false;
  UnmatchedFrames unmatched_;
};

}  // namespace ssimd

#endif  // SSIMD_ENGINE_MEDIA_FRAME_PAIRING_H_
