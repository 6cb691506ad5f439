// ScoreClipRequest and ScorePairRequest read from the grpc::ByteBuffer a raw method receives,
// through wire_request.h: the planes stay in the buffer's slices.
#ifndef SSIMD_SERVER_BYTE_BUFFER_REQUEST_H_
#define SSIMD_SERVER_BYTE_BUFFER_REQUEST_H_

#include "absl/status/statusor.h"
#include "grpcpp/support/byte_buffer.h"
#include "server/wire_request.h"

namespace ssimd {

// The result's storage holds references to `buffer`'s slices (not copies of them), so the buffer
// may be cleared or reused at once.
absl::StatusOr<ReceivedClipMessage> ReadScoreClipRequest(const grpc::ByteBuffer& buffer);
absl::StatusOr<ReceivedPairMessage> ReadScorePairRequest(const grpc::ByteBuffer& buffer);

}  // namespace ssimd

#endif  // SSIMD_SERVER_BYTE_BUFFER_REQUEST_H_
