// Small conversions between the engine's types and gRPC's.
#ifndef SSIMD_SERVER_GRPC_CONVERT_H_
#define SSIMD_SERVER_GRPC_CONVERT_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "engine/scorer.h"
#include "grpcpp/grpcpp.h"
#include "proto/ssimd/v1/ssimd.pb.h"

namespace ssimd {

// The codes are numerically the same in both libraries.
grpc::Status ToGrpcStatus(const absl::Status& status);

// "OK", "INVALID_ARGUMENT", ... (the label metrics use).
std::string StatusCodeName(grpc::StatusCode code);

void FillFrameResult(uint64_t index, const ScoreResult& result, v1::FrameResult* out);

// True once the client's `deadline` has passed, or is about to: the client's own timer may fire,
// and cancel the call, a little before the server's copy of the deadline (which counts from the
// call's arrival), and a cancel that close to it is the deadline's.
bool ClientDeadlinePassed(absl::Time deadline);

// For raw methods: a received message parsed as `message`; false when it is not one.
bool ParseRawMessage(const grpc::ByteBuffer& received, google::protobuf::Message* message);

// `message` serialized into `buffer` (cleared first) for a raw method's write or response. Only
// memory exhaustion fails, with RESOURCE_EXHAUSTED.
grpc::Status SerializeToBuffer(const google::protobuf::Message& message, grpc::ByteBuffer* buffer);

}  // namespace ssimd

#endif  // SSIMD_SERVER_GRPC_CONVERT_H_
