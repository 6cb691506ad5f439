#include "engine/gpu/staging.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "absl/strings/str_format.h"
#include "base/status_macros.h"

namespace ssimd {
namespace {

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "16-bit samples are checked in the host's byte order, which must be the wire's");

// Appends bytes to a packed plane and ORs together the high bytes of its 16-bit samples. A
// sample is above the peak 2^b - 1 (b >= 9) exactly when its high byte has a bit at b - 8 or
// higher, so one OR over the high bytes checks them all. The OR reads each block from the input
// right after memcpy did, while it is in cache; never from the output, which is pinned memory
// that can be slow to read back (bench/results/2026-12-03-h200: reading the copy back slowed
// 10-bit staging).
class CheckedCopy {
 public:
  explicit CheckedCopy(uint8_t* out) : out_(out) {}

  void Append(const uint8_t* in, size_t n) {
    while (n > 0) {
      const size_t chunk = std::min(n, kBlockBytes);
      std::memcpy(out_ + written_, in, chunk);
      OrHighBytes(in, chunk);
      written_ += chunk;
      in += chunk;
      n -= chunk;
    }
  }

  // The OR of every high byte appended so far.
  uint8_t HighBits() const {
    uint64_t folded = high_lanes_ & 0x00ff00ff00ff00ff;
    folded |= folded >> 32;
    folded |= folded >> 16;
    return static_cast<uint8_t>(folded) | high_tail_;
  }

 private:
  static constexpr size_t kBlockBytes = 4 << 10;

  // `in` holds the plane's bytes from offset written_: high bytes are those at odd offsets, which
  // are the odd bytes of each 8-byte word when the block starts at an even offset, else the even.
  // The wide loop ORs 64 bytes an iteration in four independent 16-byte lanes (GCC vector types,
  // so any target gets its own vector loads): a plain 8-byte loop is not vectorised at -O2 and
  // made 10-bit staging far slower than memcpy (bench/results/2026-12-03d-h200).
  void OrHighBytes(const uint8_t* in, size_t n) {
    using Lanes = uint64_t __attribute__((vector_size(16)));
    Lanes a = {}, b = {}, c = {}, d = {};
    size_t i = 0;
    for (; i + 64 <= n; i += 64) {
      Lanes la, lb, lc, ld;
      std::memcpy(&la, in + i, sizeof(Lanes));
      std::memcpy(&lb, in + i + 16, sizeof(Lanes));
      std::memcpy(&lc, in + i + 32, sizeof(Lanes));
      std::memcpy(&ld, in + i + 48, sizeof(Lanes));
      a |= la;
      b |= lb;
      c |= lc;
      d |= ld;
    }
    const Lanes folded = (a | b) | (c | d);
    uint64_t words = folded[0] | folded[1];
    for (; i + 8 <= n; i += 8) {
      uint64_t word;
      std::memcpy(&word, in + i, 8);
      words |= word;
    }
    high_lanes_ |= (written_ & 1) != 0 ? words : words >> 8;
    for (; i < n; ++i) {
      if (((written_ + i) & 1) != 0) high_tail_ |= in[i];
    }
  }

  uint8_t* const out_;
  size_t written_ = 0;
  uint64_t high_lanes_ = 0;  // lanes 0, 2, 4 and 6 hold high bytes
  uint8_t high_tail_ = 0;
};

// True when a sample whose high byte is one of those ORed into `high_bits` is above the peak.
bool AbovePeak(uint8_t high_bits, int bit_depth) { return (high_bits >> (bit_depth - 8)) != 0; }

}  // namespace

void CopyPackedRows(const LumaView& view, uint8_t* staging) {
  const size_t row_bytes = static_cast<size_t>(view.width) * BytesPerSample(view.bit_depth);
  for (int y = 0; y < view.height; ++y) {
    std::memcpy(staging + static_cast<size_t>(y) * row_bytes,
                view.data + static_cast<size_t>(y) * view.stride_bytes, row_bytes);
  }
}

absl::Status StageLumaPlane(const LumaView& view, uint8_t* staging, const char* what) {
  if (view.bit_depth == 8) {
    CopyPackedRows(view, staging);
    return absl::OkStatus();
  }
  const size_t row_bytes = static_cast<size_t>(view.width) * BytesPerSample(view.bit_depth);
  CheckedCopy copy(staging);
  for (int y = 0; y < view.height; ++y) {
    copy.Append(view.data + static_cast<size_t>(y) * view.stride_bytes, row_bytes);
  }
  // The exact report, which names the first bad sample, runs only when there is one.
  if (AbovePeak(copy.HighBits(), view.bit_depth)) {
    return ValidateSampleRange(view, absl::StrFormat("%s luma", what));
  }
  return absl::OkStatus();
}

absl::Status StageLumaPieces(const Geometry& geometry, const PlanePieces& plane, uint8_t* staging,
                             const char* what) {
  const std::string name = absl::StrFormat("%s luma", what);
  SSIMD_RETURN_IF_ERROR(CheckLumaBytes(geometry, plane.size(), name));
  if (plane.device() != nullptr) {
    // A plane on another device than the slot's: through the host, checked like any other.
    SSIMD_RETURN_IF_ERROR(plane.device()->CopyToHost(staging));
    if (geometry.bit_depth == 8) return absl::OkStatus();
    absl::StatusOr<LumaView> staged =
        MakeLumaView(geometry, absl::Span<const uint8_t>(staging, plane.size()), name);
    return staged.ok() ? ValidateSampleRange(*staged, name) : staged.status();
  }
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
  if (AbovePeak(copy.HighBits(), geometry.bit_depth)) {
    // The staged copy is whole now: name the first bad sample from it.
    absl::StatusOr<LumaView> staged =
        MakeLumaView(geometry, absl::Span<const uint8_t>(staging, plane.size()), name);
    return staged.ok() ? ValidateSampleRange(*staged, name) : staged.status();
  }
  return absl::OkStatus();
}

}  // namespace ssimd
