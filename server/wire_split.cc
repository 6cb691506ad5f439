#include "server/wire_split.h"

#include <algorithm>
#include <optional>

#include "proto/wire_format.h"

namespace ssimd {
namespace {

using wire::WireType;

// The most bytes a kept field's length takes unpadded (5); a padded one is left to protobuf.
constexpr size_t kMaxLengthVarintBytes = wire::VarintSize(wire::kMaxDelimitedLength);

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
  wire::VarintDecoder decoder;
  for (;;) {
    uint8_t byte = 0;
    if (position_ >= end || !NextByte(&byte)) return false;
    if (copy != nullptr) copy->push_back(static_cast<char>(byte));
    switch (decoder.Feed(byte)) {
      case wire::VarintDecoder::Step::kMore:
        break;
      case wire::VarintDecoder::Step::kDone:
        *value = decoder.value();
        return true;
      case wire::VarintDecoder::Step::kTooLong:
        return false;
    }
  }
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
    const std::optional<wire::DecodedTag> decoded = wire::DecodeTag(tag);
    if (!decoded.has_value()) return SplitOutcome::kCorrupt;
    const uint32_t field = decoded->field;
    if (decoded->type == WireType::kLengthDelimited &&
        (field == keep_a.number || field == keep_b.number)) {
      PlanePieces* pieces = field == keep_a.number ? keep_a.pieces : keep_b.pieces;
      uint64_t length = 0;
      const size_t length_at = reader.position();
      if (!reader.ReadVarint(end, &length, nullptr)) return SplitOutcome::kCorrupt;
      // A length protobuf would refuse, or one written wider than it needs: protobuf decides.
      if (length > wire::kMaxDelimitedLength ||
          reader.position() - length_at > kMaxLengthVarintBytes) {
        return SplitOutcome::kCorrupt;
      }
      pieces->Clear();
      if (!reader.Advance(length, end, nullptr, pieces)) return SplitOutcome::kCorrupt;
      continue;
    }
    rest->append(tag_bytes);
    uint64_t value = 0;
    switch (decoded->type) {
      case WireType::kVarint:
        if (!reader.ReadVarint(end, &value, rest)) return SplitOutcome::kCorrupt;
        break;
      case WireType::kFixed64:
        if (!reader.Advance(8, end, rest, nullptr)) return SplitOutcome::kCorrupt;
        break;
      case WireType::kLengthDelimited:
        if (!reader.ReadVarint(end, &value, rest) || !reader.Advance(value, end, rest, nullptr)) {
          return SplitOutcome::kCorrupt;
        }
        break;
      case WireType::kFixed32:
        if (!reader.Advance(4, end, rest, nullptr)) return SplitOutcome::kCorrupt;
        break;
      case WireType::kStartGroup:
      case WireType::kEndGroup:
        return SplitOutcome::kUnusual;
    }
  }
  return SplitOutcome::kSplit;
}

}  // namespace ssimd
