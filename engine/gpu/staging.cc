#include "engine/gpu/staging.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "absl/strings/str_format.h"

namespace ssimd {
namespace {

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "16-bit samples are checked in the host's byte order, which must be the wire's");

// Appends bytes to a packed plane and ORs together every 16-bit sample written. A sample is above
// the peak 2^b - 1 exactly when it has a bit at b or higher, so one OR over the plane, tested
// against that mask in every lane, checks them all. The OR reads each block of the output right
// after memcpy wrote it, while it is still in cache: the check costs little beyond the copy.
class CheckedCopy {
 public:
  explicit CheckedCopy(uint8_t* out) : out_(out) {}

  void Append(const uint8_t* in, size_t n) {
    while (n > 0) {
      const size_t chunk = std::min(n, kBlockBytes);
      std::memcpy(out_ + written_, in, chunk);
      written_ += chunk;
      in += chunk;
      n -= chunk;
      // Words start at multiples of 8 from the plane's start, so lanes fall on samples however
      // the input was split.
      OrWordsUpTo(written_ & ~size_t{7});
    }
  }

  // The OR of every sample written (the plane holds whole samples).
  uint64_t Finish() {
    OrWordsUpTo(written_ & ~size_t{7});
    uint64_t tail = 0;
    std::memcpy(&tail, out_ + ored_, written_ - ored_);
    return bits_ | tail;
  }

 private:
  static constexpr size_t kBlockBytes = 16 << 10;

  void OrWordsUpTo(size_t end) {
    for (; ored_ < end; ored_ += 8) {
      uint64_t word;
      std::memcpy(&word, out_ + ored_, 8);
      bits_ |= word;
    }
  }

  uint8_t* const out_;
  size_t written_ = 0;
  size_t ored_ = 0;
  uint64_t bits_ = 0;
};

// True when some 16-bit lane of `bits` has a bit above the bit depth's peak.
bool AbovePeak(uint64_t bits, int bit_depth) {
  uint64_t lane_mask = ~static_cast<uint64_t>(PeakValue(bit_depth)) & 0xffff;
  lane_mask |= lane_mask << 16;
  lane_mask |= lane_mask << 32;
  return (bits & lane_mask) != 0;
}

}  // namespace

absl::Status StageLumaPlane(const LumaView& view, uint8_t* staging, const char* what) {
  const size_t row_bytes = static_cast<size_t>(view.width) * BytesPerSample(view.bit_depth);
  if (view.bit_depth == 8) {
    for (int y = 0; y < view.height; ++y) {
      std::memcpy(staging + static_cast<size_t>(y) * row_bytes,
                  view.data + static_cast<size_t>(y) * view.stride_bytes, row_bytes);
    }
    return absl::OkStatus();
  }
  CheckedCopy copy(staging);
  for (int y = 0; y < view.height; ++y) {
    copy.Append(view.data + static_cast<size_t>(y) * view.stride_bytes, row_bytes);
  }
  // The exact report, which names the first bad sample, runs only when there is one.
  if (AbovePeak(copy.Finish(), view.bit_depth)) {
    return ValidateSampleRange(view, absl::StrFormat("%s luma", what));
  }
  return absl::OkStatus();
}

absl::Status StageLumaPieces(const Geometry& geometry, const PlanePieces& plane, uint8_t* staging,
                             const char* what) {
  const std::string name = absl::StrFormat("%s luma", what);
  if (absl::Status s = CheckLumaBytes(geometry, plane.size(), name); !s.ok()) return s;
  if (geometry.bit_depth == 8) {
    size_t at = 0;
    for (const absl::Span<const uint8_t>& piece : plane.pieces()) {
      std::memcpy(staging + at, piece.data(), piece.size());
      at += piece.size();
    }
    return absl::OkStatus();
  }
  CheckedCopy copy(staging);
  for (const absl::Span<const uint8_t>& piece : plane.pieces()) {
    copy.Append(piece.data(), piece.size());
  }
  if (AbovePeak(copy.Finish(), geometry.bit_depth)) {
    // The staged copy is whole now: name the first bad sample from it.
    absl::StatusOr<LumaView> staged =
        MakeLumaView(geometry, absl::Span<const uint8_t>(staging, plane.size()), name);
    return staged.ok() ? ValidateSampleRange(*staged, name) : staged.status();
  }
  return absl::OkStatus();
}

}  // namespace ssimd
