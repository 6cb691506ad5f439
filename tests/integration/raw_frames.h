// The frames of a raw planar clip (tests/data/reference/clips/*.yuv.xz) split as ScoreClip and
// ScorePair carry them: each frame's luma, then its two chroma planes at the size files store
// them (sides rounded up), Cb first.
#ifndef SSIMD_TESTS_INTEGRATION_RAW_FRAMES_H_
#define SSIMD_TESTS_INTEGRATION_RAW_FRAMES_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/picture.h"

namespace ssimd::testing {

struct RawFrame {
  std::string luma;
  std::string chroma;
};

// Every whole frame of the clip at `geometry`; a trailing partial frame is left out.
absl::StatusOr<std::vector<RawFrame>> ReadRawFrames(const std::string& clip,
                                                    const Geometry& geometry);

}  // namespace ssimd::testing

#endif  // SSIMD_TESTS_INTEGRATION_RAW_FRAMES_H_
