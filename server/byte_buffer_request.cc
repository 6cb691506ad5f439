#include "server/byte_buffer_request.h"

#include <memory>
#include <vector>

namespace ssimd {
namespace {

// References to the buffer's slices (not copies), in storage that the result keeps.
struct SliceStorage {
  std::vector<grpc::Slice> slices;
  Chunks chunks;
};

std::shared_ptr<SliceStorage> TakeSlices(const grpc::ByteBuffer& buffer) {
  auto storage = std::make_shared<SliceStorage>();
  (void)buffer.Dump(&storage->slices);
  // Views are taken once the vector is final: a small slice keeps its bytes inline, in the
  // grpc::Slice object itself.
  for (const grpc::Slice& slice : storage->slices) {
    storage->chunks.emplace_back(slice.begin(), slice.size());
  }
  return storage;
}

// Reads the message and, where its pieces point into the slices, keeps the slices with it.
template <typename Message, typename Read>
absl::StatusOr<Message> ReadFrom(const grpc::ByteBuffer& buffer, Read read) {
  std::shared_ptr<SliceStorage> storage = TakeSlices(buffer);
  absl::StatusOr<Message> message = read(storage->chunks);
  if (message.ok() && message->planes.storage == nullptr) message->planes.storage = storage;
  return message;
}

}  // namespace

absl::StatusOr<ReceivedClipMessage> ReadScoreClipRequest(const grpc::ByteBuffer& buffer) {
  return ReadFrom<ReceivedClipMessage>(buffer, ReadScoreClipRequestFromChunks);
}

absl::StatusOr<ReceivedPairMessage> ReadScorePairRequest(const grpc::ByteBuffer& buffer) {
  return ReadFrom<ReceivedPairMessage>(buffer, ReadScorePairRequestFromChunks);
}

}  // namespace ssimd
