#include "client/outgoing_message.h"

#include <utility>
#include <vector>

namespace ssimd {
namespace {

constexpr uint32_t kClipFrameField = v1::ScoreClipRequest::kFrameFieldNumber;
constexpr uint32_t kFrameIndexField = v1::FramePair::kIndexFieldNumber;
constexpr uint32_t kFrameReferenceField = v1::FramePair::kReferenceLumaFieldNumber;
constexpr uint32_t kFrameDistortedField = v1::FramePair::kDistortedLumaFieldNumber;
constexpr uint32_t kPairReferenceField = v1::ScorePairRequest::kReferenceLumaFieldNumber;
constexpr uint32_t kPairDistortedField = v1::ScorePairRequest::kDistortedLumaFieldNumber;
constexpr uint32_t kVarint = 0;
constexpr uint32_t kLengthDelimited = 2;

void PutVarint(uint64_t value, std::string* out) {
  while (value >= 0x80) {
    out->push_back(static_cast<char>((value & 0x7f) | 0x80));
    value >>= 7;
  }
  out->push_back(static_cast<char>(value));
}

size_t VarintSize(uint64_t value) {
  size_t n = 1;
  while (value >= 0x80) {
    value >>= 7;
    ++n;
  }
  return n;
}

void PutTag(uint32_t field, uint32_t wire_type, std::string* out) {
  PutVarint((field << 3) | wire_type, out);
}

// Bytes of a length-delimited field of `length` bytes, tag and length included; proto3 leaves an
// empty one out.
size_t DelimitedFieldSize(uint32_t field, size_t length) {
  return length == 0 ? 0 : VarintSize(field << 3) + VarintSize(length) + length;
}

// A slice that refers to `bytes` and keeps `planes` (which owns them) alive until gRPC drops it.
grpc::Slice PlaneSlice(const std::string& bytes, const std::shared_ptr<const OutgoingPlanes>& planes) {
  auto* keep = new std::shared_ptr<const OutgoingPlanes>(planes);
  return grpc::Slice(
      const_cast<char*>(bytes.data()), bytes.size(),
      [](void* user_data) { delete static_cast<std::shared_ptr<const OutgoingPlanes>*>(user_data); },
      keep);
}

// `header`, then the two plane fields: a tag-and-length slice and the plane itself for each plane
// that is not empty.
void AppendPlanes(uint32_t reference_field, uint32_t distorted_field, std::string header,
                  const std::shared_ptr<const OutgoingPlanes>& planes,
                  std::vector<grpc::Slice>* slices) {
  for (auto [field, plane] : {std::make_pair(reference_field, &planes->reference),
                              std::make_pair(distorted_field, &planes->distorted)}) {
    if (plane->empty()) continue;
    PutTag(field, kLengthDelimited, &header);
    PutVarint(plane->size(), &header);
    slices->emplace_back(header.data(), header.size());
    slices->push_back(PlaneSlice(*plane, planes));
    header.clear();
  }
  if (!header.empty()) slices->emplace_back(header.data(), header.size());
}

}  // namespace

grpc::ByteBuffer FrameRequestBuffer(uint64_t index, std::shared_ptr<const OutgoingPlanes> planes) {
  const size_t index_bytes = index == 0 ? 0 : VarintSize(kFrameIndexField << 3) + VarintSize(index);
  const size_t frame_bytes = index_bytes +
                             DelimitedFieldSize(kFrameReferenceField, planes->reference.size()) +
                             DelimitedFieldSize(kFrameDistortedField, planes->distorted.size());
  std::string header;
  PutTag(kClipFrameField, kLengthDelimited, &header);
  PutVarint(frame_bytes, &header);
  if (index != 0) {
    PutTag(kFrameIndexField, kVarint, &header);
    PutVarint(index, &header);
  }
  std::vector<grpc::Slice> slices;
  AppendPlanes(kFrameReferenceField, kFrameDistortedField, std::move(header), planes, &slices);
  return grpc::ByteBuffer(slices.data(), slices.size());
}

grpc::ByteBuffer PairRequestBuffer(const v1::ScorePairRequest& fields,
                                   std::shared_ptr<const OutgoingPlanes> planes) {
  std::vector<grpc::Slice> slices;
  AppendPlanes(kPairReferenceField, kPairDistortedField, fields.SerializeAsString(), planes,
               &slices);
  return grpc::ByteBuffer(slices.data(), slices.size());
}

}  // namespace ssimd
