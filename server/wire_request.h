// ScoreClipRequest and ScorePairRequest read straight from the chunks a message was received in
// (byte_buffer_request.h takes them from a grpc::ByteBuffer): the luma planes stay where they are
// (PlanePieces over the chunks) and only the small rest of the message is copied and parsed by
// protobuf. A message in the usual encoding (what protobuf
// serializers write) takes that path; any other valid encoding (a repeated `frame` field, groups)
// is parsed whole by protobuf, a copy, with the same result. A message that does not parse (bad
// bytes, a string that is not UTF-8) is INVALID_ARGUMENT.
#ifndef SSIMD_SERVER_WIRE_REQUEST_H_
#define SSIMD_SERVER_WIRE_REQUEST_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "engine/features.h"
#include "engine/picture.h"
#include "engine/plane_pieces.h"
#include "proto/ssimd/v1/ssimd.pb.h"
#include "server/wire_split.h"

namespace ssimd {

// A frame pair's planes and the storage they point into.
struct ReceivedPlanes {
  PlanePieces reference;
  PlanePieces distorted;
  // Both chroma planes of each picture (Cb then Cr, at the stored chroma size) as the message
  // or the file carried them: empty where it carried none.
  absl::Span<const uint8_t> reference_chroma;
  absl::Span<const uint8_t> distorted_chroma;
  // What the views point into: the received slices, a parsed message, or frames read from files
  // (their chroma too); and chroma copied out of a message.
  std::shared_ptr<const void> storage;
  std::shared_ptr<const void> chroma_storage;
};

// Planes that are whole strings already, moved into storage of their own: each a luma plane.
// When the planes are no longer used, `give_back` (if set) receives both strings, for reuse.
ReceivedPlanes PlanesFromStrings(std::string reference, std::string distorted,
                                 std::function<void(std::string)> give_back = nullptr);
// The same for frames read from files (VideoInput::ReadPlanes): each string is a luma plane of
// `geometry`, followed by the picture's chroma planes where its input kept them.
ReceivedPlanes PlanesFromFrames(std::string reference, std::string distorted,
                                const Geometry& geometry,
                                std::function<void(std::string)> give_back = nullptr);

struct ReceivedClipMessage {
  // Set for a `frame` message: its index and planes.
  std::optional<uint64_t> frame_index;
  ReceivedPlanes planes;
  // Any other message (a config, or neither field set) as protobuf parsed it.
  v1::ScoreClipRequest other;
};

struct ReceivedPairMessage {
  v1::ScorePairRequest fields;  // every field but the planes
  ReceivedPlanes planes;
};

// The chroma views to score `planes` with: nullopt where `features` read no chroma
// (FeaturesReadChroma; whatever the frame carried is not read), else views over the carried
// planes. INVALID_ARGUMENT naming `<field_prefix>reference_chroma` or `...distorted_chroma` when
// one is missing or of the wrong size.
absl::StatusOr<std::optional<FrameChroma>> ChromaToScore(const Geometry& geometry,
                                                         const FeatureSet& features,
                                                         const ReceivedPlanes& planes,
                                                         absl::string_view field_prefix);

// The message in `chunks`, which the caller keeps alive: the pieces point into them (and storage
// is null) unless the message took the whole-message path (storage holds the parsed planes).
absl::StatusOr<ReceivedClipMessage> ReadScoreClipRequestFromChunks(const Chunks& chunks);
absl::StatusOr<ReceivedPairMessage> ReadScorePairRequestFromChunks(const Chunks& chunks);

}  // namespace ssimd

#endif  // SSIMD_SERVER_WIRE_REQUEST_H_
