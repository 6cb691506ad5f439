#include "engine/gpu/staging.h"

#include <cstring>

#include "absl/strings/str_format.h"

namespace ssimd {

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "16-bit samples are checked in the host's byte order, which must be the wire's");

// A sample is above the peak 2^b - 1 exactly when it has a bit at b or higher, so the copy ORs
// 8-byte words (four samples each) and tests the OR against that mask in every 16-bit lane: one
// pass at memcpy speed. The exact report, which names the sample, runs only when one is bad.
absl::Status StageLumaPlane(const LumaView& view, uint8_t* staging, const char* what) {
  const size_t row_bytes = static_cast<size_t>(view.width) * BytesPerSample(view.bit_depth);
  if (view.bit_depth == 8) {
    for (int y = 0; y < view.height; ++y) {
      std::memcpy(staging + static_cast<size_t>(y) * row_bytes,
                  view.data + static_cast<size_t>(y) * view.stride_bytes, row_bytes);
    }
    return absl::OkStatus();
  }
  uint64_t lane_mask = ~static_cast<uint64_t>(PeakValue(view.bit_depth)) & 0xffff;
  lane_mask |= lane_mask << 16;
  lane_mask |= lane_mask << 32;
  uint64_t bits = 0;
  for (int y = 0; y < view.height; ++y) {
    const uint8_t* in = view.data + static_cast<size_t>(y) * view.stride_bytes;
    uint8_t* out = staging + static_cast<size_t>(y) * row_bytes;
    size_t i = 0;
    for (; i + 8 <= row_bytes; i += 8) {
      uint64_t word;
      std::memcpy(&word, in + i, 8);
      bits |= word;
      std::memcpy(out + i, &word, 8);
    }
    for (; i < row_bytes; i += 2) {
      uint16_t sample;
      std::memcpy(&sample, in + i, 2);
      bits |= sample;
      std::memcpy(out + i, &sample, 2);
    }
  }
  if ((bits & lane_mask) != 0) return ValidateSampleRange(view, absl::StrFormat("%s luma", what));
  return absl::OkStatus();
}

}  // namespace ssimd
