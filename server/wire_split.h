// Splits a serialized protobuf message that lies in several chunks (the slices a gRPC message
// arrived in) into its large bytes fields, as views into the chunks, and everything else, copied
// into a small buffer for protobuf to parse. This is how a frame's planes reach the engine
// without being copied out of the receive buffer: protobuf's own parser would copy each one into
// a std::string first. Only the protobuf wire format is read here (proto/wire_format.h, no
// generated code), so it is tested and fuzzed on its own; wire_request.h puts it to use for the
// API's messages.
#ifndef SSIMD_SERVER_WIRE_SPLIT_H_
#define SSIMD_SERVER_WIRE_SPLIT_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/types/span.h"
#include "engine/plane_pieces.h"

namespace ssimd {

using Chunks = std::vector<absl::Span<const uint8_t>>;

// A forward-only reader over the bytes [0, size) of `chunks`, read in order.
class ChunkReader {
 public:
  explicit ChunkReader(const Chunks& chunks);

  size_t position() const { return position_; }
  size_t size() const { return size_; }

  // A base-128 varint of at most 10 bytes; false (nothing consumed reliably) when it runs past
  // `end` or is longer. Its raw bytes are appended to `copy` unless that is null.
  bool ReadVarint(size_t end, uint64_t* value, std::string* copy);
  // Moves `n` bytes on, appending them to `copy` unless that is null, or adding them to `pieces`
  // unless that is null; false when fewer than `n` bytes are left before `end`.
  bool Advance(size_t n, size_t end, std::string* copy, PlanePieces* pieces);

 private:
  bool NextByte(uint8_t* byte);

  const Chunks& chunks_;
  size_t size_ = 0;
  size_t chunk_ = 0;   // the chunk holding `position_`
  size_t offset_ = 0;  // within that chunk
  size_t position_ = 0;
};

enum class SplitOutcome {
  kSplit,    // done: `rest` and the two piece lists hold the message
  kUnusual,  // valid perhaps, but not in the form handled here (groups): parse it whole
  kCorrupt,  // not a valid encoding (truncated, bad wire type, field number 0): parse it whole,
             // to get protobuf's own verdict
};

// The field to keep as pieces, and where to put it.
struct PieceField {
  uint32_t number = 0;
  PlanePieces* pieces = nullptr;
};

// Splits the message body [reader.position(), end): each length-delimited field numbered as one
// of `keep` replaces that field's pieces (the last occurrence wins, as in protobuf's parser);
// every other field is appended to `rest` byte for byte, in order, so that parsing `rest` gives
// the message without the kept fields.
SplitOutcome SplitFields(ChunkReader& reader, size_t end, PieceField keep_a, PieceField keep_b,
                         std::string* rest);

}  // namespace ssimd

#endif  // SSIMD_SERVER_WIRE_SPLIT_H_
