#include "client/outgoing_message.h"

#include <array>
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

// A plane and the field number it goes out as.
struct PlaneField {
  uint32_t field;
  const std::string* bytes;
};

// The planes of a FramePair, in field-number order as protobuf writes them.
std::array<PlaneField, 4> FramePlaneFields(const OutgoingPlanes& planes) {
  return {{{wire::kFrameReferenceField, &planes.reference},
           {wire::kFrameDistortedField, &planes.distorted},
           {wire::kFrameReferenceChromaField, &planes.reference_chroma},
           {wire::kFrameDistortedChromaField, &planes.distorted_chroma}}};
}

// The same for a ScorePairRequest, whose planes follow its other fields.
std::array<PlaneField, 4> PairPlaneFields(const OutgoingPlanes& planes) {
  return {{{wire::kPairReferenceField, &planes.reference},
           {wire::kPairDistortedField, &planes.distorted},
           {wire::kPairReferenceChromaField, &planes.reference_chroma},
           {wire::kPairDistortedChromaField, &planes.distorted_chroma}}};
}

// `header`, then the plane fields: a tag-and-length slice and the plane itself for each plane
// that is not empty.
void AppendPlanes(const std::array<PlaneField, 4>& fields, std::string header,
                  const std::shared_ptr<const OutgoingPlanes>& planes,
                  std::vector<grpc::Slice>* slices) {
  for (const PlaneField& plane : fields) {
    if (plane.bytes->empty()) continue;
    wire::PutTag(plane.field, WireType::kLengthDelimited, &header);
    wire::PutVarint(plane.bytes->size(), &header);
    slices->emplace_back(header.data(), header.size());
    slices->push_back(PlaneSlice(*plane.bytes, planes));
    header.clear();
  }
  if (!header.empty()) slices->emplace_back(header.data(), header.size());
}

}  // namespace

grpc::ByteBuffer FrameRequestBuffer(uint64_t index, std::shared_ptr<const OutgoingPlanes> planes) {
  // proto3 leaves an index of 0 out.
  const size_t index_bytes =
      index == 0 ? 0 : wire::TagSize(wire::kFrameIndexField) + wire::VarintSize(index);
  const std::array<PlaneField, 4> fields = FramePlaneFields(*planes);
  size_t frame_bytes = index_bytes;
  for (const PlaneField& plane : fields) {
    frame_bytes += PresentDelimitedFieldSize(plane.field, plane.bytes->size());
  }
  std::string header;
  wire::PutTag(wire::kClipFrameField, WireType::kLengthDelimited, &header);
  wire::PutVarint(frame_bytes, &header);
  if (index != 0) {
    wire::PutTag(wire::kFrameIndexField, WireType::kVarint, &header);
    wire::PutVarint(index, &header);
  }
  std::vector<grpc::Slice> slices;
  AppendPlanes(fields, std::move(header), planes, &slices);
  return grpc::ByteBuffer(slices.data(), slices.size());
}

grpc::ByteBuffer PairRequestBuffer(const v1::ScorePairRequest& fields,
                                   std::shared_ptr<const OutgoingPlanes> planes) {
  std::vector<grpc::Slice> slices;
  AppendPlanes(PairPlaneFields(*planes), fields.SerializeAsString(), planes, &slices);
  return grpc::ByteBuffer(slices.data(), slices.size());
}

}  // namespace ssimd
