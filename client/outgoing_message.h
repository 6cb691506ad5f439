// Requests with frame planes, serialized for gRPC without copying the planes: the message's bytes
// are a few header slices written here plus one slice per plane that refers to the plane's string
// (kept alive until gRPC has sent it). protobuf's serializer would copy every plane into a new
// buffer first. The bytes are those protobuf writes for the same message (fields in number order,
// an index of 0 left out), so any protobuf reader parses them.
#ifndef SSIMD_CLIENT_OUTGOING_MESSAGE_H_
#define SSIMD_CLIENT_OUTGOING_MESSAGE_H_

#include <cstdint>
#include <memory>
#include <string>

#include "grpcpp/support/byte_buffer.h"
#include "proto/ssimd/v1/ssimd.pb.h"

namespace ssimd {

// The planes of a frame pair, owned by the message that refers to them: the two lumas and, when
// a requested feature reads chroma, each picture's Cb and Cr planes packed one after the other as
// a planar .yuv frame stores them. An empty plane is left out of the message.
struct OutgoingPlanes {
  std::string reference;
  std::string distorted;
  std::string reference_chroma;
  std::string distorted_chroma;
};

// ScoreClipRequest{frame: {index, reference_luma, distorted_luma, reference_chroma,
// distorted_chroma}}.
grpc::ByteBuffer FrameRequestBuffer(uint64_t index, std::shared_ptr<const OutgoingPlanes> planes);

// ScorePairRequest: `fields` (whose planes must be empty) and then the planes.
grpc::ByteBuffer PairRequestBuffer(const v1::ScorePairRequest& fields,
                                   std::shared_ptr<const OutgoingPlanes> planes);

}  // namespace ssimd

#endif  // SSIMD_CLIENT_OUTGOING_MESSAGE_H_
