#include "engine/plane_pieces.h"

#include <cstring>

namespace ssimd {

absl::Span<const uint8_t> PlanePieces::Gather(std::vector<uint8_t>& scratch) const {
  if (pieces_.size() == 1) return pieces_[0];
  if (scratch.size() < size_) scratch.resize(size_);
  size_t at = 0;
  for (const absl::Span<const uint8_t>& piece : pieces_) {
    std::memcpy(scratch.data() + at, piece.data(), piece.size());
    at += piece.size();
  }
  return absl::Span<const uint8_t>(scratch.data(), size_);
}

absl::StatusOr<absl::Span<const uint8_t>> PlanePieces::HostBytes(
    std::vector<uint8_t>& scratch) const {
  if (device_ == nullptr) return Gather(scratch);
  if (scratch.size() < size_) scratch.resize(size_);
  absl::Status copied = device_->CopyToHost(scratch.data());
  if (!copied.ok()) return copied;
  return absl::Span<const uint8_t>(scratch.data(), size_);
}

}  // namespace ssimd
