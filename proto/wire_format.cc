#include "proto/wire_format.h"

namespace ssimd::wire {

void PutVarint(uint64_t value, std::string* out) {
  while (value >= 0x80) {
    out->push_back(static_cast<char>((value & 0x7f) | 0x80));
    value >>= 7;
  }
  out->push_back(static_cast<char>(value));
}

void PutTag(uint32_t field, WireType type, std::string* out) { PutVarint(Tag(field, type), out); }

std::optional<DecodedTag> DecodeTag(uint64_t tag) {
  const uint64_t field = tag >> 3;
  const uint64_t type = tag & 7;
  if (field == 0 || field > kMaxFieldNumber || type > static_cast<uint64_t>(WireType::kFixed32)) {
    return std::nullopt;
  }
  return DecodedTag{static_cast<uint32_t>(field), static_cast<WireType>(type)};
}

}  // namespace ssimd::wire
