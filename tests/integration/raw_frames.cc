#include "tests/integration/raw_frames.h"

#include <cstdint>

#include "tests/reference/reference_set.h"

namespace ssimd::testing {

absl::StatusOr<std::vector<RawFrame>> ReadRawFrames(const std::string& clip,
                                                    const Geometry& geometry) {
  absl::StatusOr<std::vector<uint8_t>> read = ReadXzFile(clip);
  if (!read.ok()) return read.status();
  const std::string bytes(read->begin(), read->end());
  const size_t frame = FrameBytes(geometry);
  const size_t luma = LumaBytes(geometry);
  std::vector<RawFrame> frames;
  for (size_t at = 0; at + frame <= bytes.size(); at += frame) {
    frames.push_back({bytes.substr(at, luma), bytes.substr(at + luma, frame - luma)});
  }
  return frames;
}

}  // namespace ssimd::testing
