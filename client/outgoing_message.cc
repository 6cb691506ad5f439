#include "client/outgoing_message.h"

#include <utility>
#include <vector>

#include "proto/wire_fields.h"
#include "proto/wire_format.h"

namespace ssimd {
namespace {

using wire::WireType;

// Bytes of a length-delimited field of `length` bytes; proto3 leaves an empty one out.
size_t PresentDelimitedFieldSize(uint32_t field, size_t length) {
  return length == 0 ? 0 : wire::DelimitedFieldSize(field, length);
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
    wire::PutTag(field, WireType::kLengthDelimited, &header);
    wire::PutVarint(plane->size(), &header);
    slices->emplace_back(header.data(), header.size());
    slices->push_back(PlaneSlice(*plane, planes));
    header.clear();
  }
  if (!header.empty()) slices->emplace_back(header.data(), header.size());
}

}  // namespace

grpc::ByteBuffer FrameRequestBuffer(uint64_t index, std::shared_ptr<const OutgoingPlanes> planes) {
  // proto3 leaves an index of 0 out.
  const size_t index_bytes =
      index == 0 ? 0 : wire::TagSize(wire::kFrameIndexField) + wire::VarintSize(index);
  const size_t frame_bytes =
      index_bytes +
      PresentDelimitedFieldSize(wire::kFrameReferenceField, planes->reference.size()) +
      PresentDelimitedFieldSize(wire::kFrameDistortedField, planes->distorted.size());
  std::string header;
  wire::PutTag(wire::kClipFrameField, WireType::kLengthDelimited, &header);
  wire::PutVarint(frame_bytes, &header);
  if (index != 0) {
    wire::PutTag(wire::kFrameIndexField, WireType::kVarint, &header);
    wire::PutVarint(index, &header);
  }
  std::vector<grpc::Slice> slices;
  AppendPlanes(wire::kFrameReferenceField, wire::kFrameDistortedField, std::move(header), planes,
               &slices);
  return grpc::ByteBuffer(slices.data(), slices.size());
}

grpc::ByteBuffer PairRequestBuffer(const v1::ScorePairRequest& fields,
                                   std::shared_ptr<const OutgoingPlanes> planes) {
  std::vector<grpc::Slice> slices;
  AppendPlanes(wire::kPairReferenceField, wire::kPairDistortedField, fields.SerializeAsString(),
               planes, &slices);
  return grpc::ByteBuffer(slices.data(), slices.size());
}

}  // namespace ssimd
