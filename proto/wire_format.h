// The arithmetic of protobuf's wire format, for the code that writes and reads the API's frame
// messages by hand so that planes are not copied (docs/adr/0064): the client's request slices
// (client/outgoing_message) and the server's reading from receive slices (server/wire_split,
// server/wire_request). Both sides use these routines, so the bytes one writes are the bytes the
// other reads. The field numbers of those messages are in wire_fields.h.
#ifndef SSIMD_PROTO_WIRE_FORMAT_H_
#define SSIMD_PROTO_WIRE_FORMAT_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace ssimd::wire {

// The low three bits of a tag. 6 and 7 are not wire types.
enum class WireType : uint8_t {
  kVarint = 0,
  kFixed64 = 1,
  kLengthDelimited = 2,
  kStartGroup = 3,  // groups: deprecated, never in the API's messages
  kEndGroup = 4,
  kFixed32 = 5,
};

inline constexpr uint32_t kMaxFieldNumber = (uint32_t{1} << 29) - 1;
// protobuf limits a length-delimited field to what an int holds.
inline constexpr uint64_t kMaxDelimitedLength = (uint64_t{1} << 31) - 1;
// A 64-bit value in groups of 7 bits.
inline constexpr size_t kMaxVarintBytes = 10;

// Bytes of `value` as a base-128 varint.
constexpr size_t VarintSize(uint64_t value) {
  size_t n = 1;
  while (value >= 0x80) {
    value >>= 7;
    ++n;
  }
  return n;
}

// Appends `value` as a base-128 varint, least significant group first.
void PutVarint(uint64_t value, std::string* out);

// Reads a varint one byte at a time, for bytes that are not contiguous (a message spread over
// gRPC's receive slices). Bits past the 64th, possible only in a 10th byte, are dropped.
class VarintDecoder {
 public:
  enum class Step {
    kMore,     // the byte had the continuation bit: feed the next one
    kDone,     // value() is the varint
    kTooLong,  // the 10th byte still had the continuation bit: not a valid encoding
  };

  Step Feed(uint8_t byte) {
    value_ |= static_cast<uint64_t>(byte & 0x7f) << shift_;
    if ((byte & 0x80) == 0) return Step::kDone;
    shift_ += 7;
    return shift_ < 7 * kMaxVarintBytes ? Step::kMore : Step::kTooLong;
  }
  uint64_t value() const { return value_; }

 private:
  uint64_t value_ = 0;
  size_t shift_ = 0;
};

// A field's tag: its number and wire type.
constexpr uint64_t Tag(uint32_t field, WireType type) {
  return (static_cast<uint64_t>(field) << 3) | static_cast<uint64_t>(type);
}
constexpr size_t TagSize(uint32_t field) { return VarintSize(Tag(field, WireType::kVarint)); }
void PutTag(uint32_t field, WireType type, std::string* out);

struct DecodedTag {
  uint32_t field = 0;
  WireType type = WireType::kVarint;
};

// The field number and wire type of `tag`; nullopt for field number 0, one past
// kMaxFieldNumber, or wire type 6 or 7, which no valid message holds.
std::optional<DecodedTag> DecodeTag(uint64_t tag);

// Bytes of a length-delimited field of `length` bytes: tag, length and the bytes. (proto3 leaves
// an empty bytes field out altogether; that is the writer's choice, not counted here.)
constexpr size_t DelimitedFieldSize(uint32_t field, size_t length) {
  return TagSize(field) + VarintSize(length) + length;
}

}  // namespace ssimd::wire

#endif  // SSIMD_PROTO_WIRE_FORMAT_H_
