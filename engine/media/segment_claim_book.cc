#include "engine/media/segment_claim_book.h"

#include <algorithm>

namespace ssimd {

uint64_t SegmentClaimBook::Claim(int worker, uint64_t reached) {
  const uint64_t segment = std::max(next_, reached);
  // A segment passed over was behind every decoder that could claim it (none can, any more):
  // it stays without an owner, and the reader learns of it at the file's end.
  while (first_ + owners_.size() < segment) owners_.push_back(-1);
  owners_.push_back(worker);
  next_ = segment + 1;
  return segment;
}

std::optional<int> SegmentClaimBook::OwnerOf(uint64_t segment) const {
  if (segment < first_ || segment >= first_ + owners_.size()) return std::nullopt;
  const int owner = owners_[segment - first_];
  if (owner < 0) return std::nullopt;
  return owner;
}

void SegmentClaimBook::ForgetBefore(uint64_t segment) {
  while (first_ < segment && !owners_.empty()) {
    owners_.pop_front();
    ++first_;
  }
}

}  // namespace ssimd
