#include "server/wire_split.h"

#include <algorithm>

namespace ssimd {
namespace {

constexpr int kWireFixed64 = 1;
constexpr int kWireStartGroup = 3;
constexpr int kWireEndGroup = 4;
constexpr int kWireFixed32 = 5;
constexpr uint64_t kMaxFieldNumber = (uint64_t{1} << 29) - 1;
constexpr uint64_t kMaxLength = (uint64_t{1} << 31) - 1;

}  // namespace

ChunkReader::ChunkReader(const Chunks& chunks) : chunks_(chunks) {
  for (const absl::Span<const uint8_t>& chunk : chunks_) size_ += chunk.size();
  while (chunk_ < chunks_.size() && chunks_[chunk_].empty()) ++chunk_;
}

bool ChunkReader::NextByte(uint8_t* byte) {
  if (chunk_ >= chunks_.size()) return false;
  *byte = chunks_[chunk_][offset_];
  ++position_;
  if (++offset_ == chunks_[chunk_].size()) {
    offset_ = 0;
    do {
      ++chunk_;
    } while (chunk_ < chunks_.size() && chunks_[chunk_].empty());
  }
  return true;
}

bool ChunkReader::ReadVarint(size_t end, uint64_t* value, std::string* copy) {
  uint64_t result = 0;
  for (int shift = 0; shift < 70; shift += 7) {
    uint8_t byte = 0;
    if (position_ >= end || !NextByte(&byte)) return false;
    if (copy != nullptr) copy->push_back(static_cast<char>(byte));
    result |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) {
      *value = result;
      return true;
    }
  }
  return false;  // more than 10 bytes
}

bool ChunkReader::Advance(size_t n, size_t end, std::string* copy, PlanePieces* pieces) {
  if (end < position_ || n > end - position_ || n > size_ - position_) return false;
  while (n > 0) {
    const absl::Span<const uint8_t>& chunk = chunks_[chunk_];
    const size_t take = std::min(n, chunk.size() - offset_);
    const uint8_t* from = chunk.data() + offset_;
    if (copy != nullptr) copy->append(reinterpret_cast<const char*>(from), take);
    if (pieces != nullptr) pieces->Add(absl::Span<const uint8_t>(from, take));
    n -= take;
    position_ += take;
    offset_ += take;
    if (offset_ == chunk.size()) {
      offset_ = 0;
      do {
        ++chunk_;
      } while (chunk_ < chunks_.size() && chunks_[chunk_].empty());
    }
  }
  return true;
}

SplitOutcome SplitFields(ChunkReader& reader, size_t end, PieceField keep_a, PieceField keep_b,
                         std::string* rest) {
  while (reader.position() < end) {
    // The tag goes to `rest` unless the field turns out to be kept, so it is read aside first.
    std::string tag_bytes;
    uint64_t tag = 0;
    if (!reader.ReadVarint(end, &tag, &tag_bytes)) return SplitOutcome::kCorrupt;
    const uint64_t field = tag >> 3;
    const int wire_type = static_cast<int>(tag & 7);
    if (field == 0 || field > kMaxFieldNumber) return SplitOutcome::kCorrupt;
    if (wire_type == kWireLengthDelimited &&
        (field == static_cast<uint64_t>(keep_a.number) ||
         field == static_cast<uint64_t>(keep_b.number))) {
      PlanePieces* pieces =
          field == static_cast<uint64_t>(keep_a.number) ? keep_a.pieces : keep_b.pieces;
      uint64_t length = 0;
      const size_t length_at = reader.position();
      if (!reader.ReadVarint(end, &length, nullptr)) return SplitOutcome::kCorrupt;
      // Lengths are at most 2^31 - 1 in a 5-byte varint: leave anything else to protobuf.
      if (length > kMaxLength || reader.position() - length_at > 5) return SplitOutcome::kCorrupt;
      pieces->Clear();
      if (!reader.Advance(length, end, nullptr, pieces)) return SplitOutcome::kCorrupt;
      continue;
    }
    rest->append(tag_bytes);
    uint64_t value = 0;
    switch (wire_type) {
      case kWireVarint:
        if (!reader.ReadVarint(end, &value, rest)) return SplitOutcome::kCorrupt;
        break;
      case kWireFixed64:
        if (!reader.Advance(8, end, rest, nullptr)) return SplitOutcome::kCorrupt;
        break;
      case kWireLengthDelimited:
        if (!reader.ReadVarint(end, &value, rest) || !reader.Advance(value, end, rest, nullptr)) {
          return SplitOutcome::kCorrupt;
        }
        break;
      case kWireFixed32:
        if (!reader.Advance(4, end, rest, nullptr)) return SplitOutcome::kCorrupt;
        break;
      case kWireStartGroup:
      case kWireEndGroup:
        return SplitOutcome::kUnusual;
      default:
        return SplitOutcome::kCorrupt;
    }
  }
  return SplitOutcome::kSplit;
}

}  // namespace ssimd
