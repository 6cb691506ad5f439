#include "server/wire_request.h"

#include <array>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "engine/psnr_scores.h"
#include "proto/wire_fields.h"
#include "proto/wire_format.h"

namespace ssimd {
namespace {

absl::Status NotParsable(absl::string_view type) {
  return absl::InvalidArgumentError(absl::StrCat(
      "the message does not parse as ssimd.v1.", type,
      ": its bytes are not a valid encoding, or a string field (title_id, rung, labels, "
      "feature_args) is not valid UTF-8, which proto3 requires; send text as UTF-8"));
}

std::string Flatten(const Chunks& chunks) {
  std::string out;
  size_t size = 0;
  for (const absl::Span<const uint8_t>& chunk : chunks) size += chunk.size();
  out.reserve(size);
  for (const absl::Span<const uint8_t>& chunk : chunks) {
    out.append(reinterpret_cast<const char*>(chunk.data()), chunk.size());
  }
  return out;
}

absl::Span<const uint8_t> Bytes(const std::string& s) {
  return absl::Span<const uint8_t>(reinterpret_cast<const uint8_t*>(s.data()), s.size());
}

// Moves a message's chroma planes (small beside its luma: a copy of them costs little) into
// storage of the planes' own.
template <typename Message>
void TakeChroma(Message& message, ReceivedPlanes& planes) {
  if (message.reference_chroma().empty() && message.distorted_chroma().empty()) return;
  using Held = std::pair<std::string, std::string>;
  auto held = std::make_shared<Held>(std::move(*message.mutable_reference_chroma()),
                                     std::move(*message.mutable_distorted_chroma()));
  message.clear_reference_chroma();
  message.clear_distorted_chroma();
  // Views of the strings where they now stay (a short string's bytes move with it).
  planes.reference_chroma = Bytes(held->first);
  planes.distorted_chroma = Bytes(held->second);
  planes.chroma_storage = std::move(held);
}

absl::StatusOr<ReceivedClipMessage> ParseWholeClipRequest(const Chunks& chunks) {
  v1::ScoreClipRequest parsed;
  if (!parsed.ParseFromString(Flatten(chunks))) return NotParsable("ScoreClipRequest");
  ReceivedClipMessage out;
  if (parsed.has_frame()) {
    v1::FramePair* frame = parsed.mutable_frame();
    out.frame_index = frame->index();
    out.planes = PlanesFromStrings(std::move(*frame->mutable_reference_luma()),
                                   std::move(*frame->mutable_distorted_luma()));
    TakeChroma(*frame, out.planes);
  } else {
    out.other = std::move(parsed);
  }
  return out;
}

absl::StatusOr<ReceivedPairMessage> ParseWholePairRequest(const Chunks& chunks) {
  ReceivedPairMessage out;
  if (!out.fields.ParseFromString(Flatten(chunks))) return NotParsable("ScorePairRequest");
  out.planes = PlanesFromStrings(std::move(*out.fields.mutable_reference_luma()),
                                 std::move(*out.fields.mutable_distorted_luma()));
  out.fields.clear_reference_luma();
  out.fields.clear_distorted_luma();
  TakeChroma(out.fields, out.planes);
  return out;
}

}  // namespace

ReceivedPlanes PlanesFromFrames(std::string reference, std::string distorted,
                                const Geometry& geometry,
                                std::function<void(std::string)> give_back) {
  ReceivedPlanes planes =
      PlanesFromStrings(std::move(reference), std::move(distorted), std::move(give_back));
  const size_t luma_bytes = LumaBytes(geometry);
  for (auto [plane, chroma] : {std::pair(&planes.reference, &planes.reference_chroma),
                               std::pair(&planes.distorted, &planes.distorted_chroma)}) {
    if (plane->size() <= luma_bytes) continue;  // luma alone
    const absl::Span<const uint8_t> frame = plane->pieces().front();
    *plane = PlanePieces(frame.first(luma_bytes));
    *chroma = frame.subspan(luma_bytes);
  }
  return planes;
}

ReceivedPlanes PlanesFromStrings(std::string reference, std::string distorted,
                                 std::function<void(std::string)> give_back) {
  using Strings = std::pair<std::string, std::string>;
  auto owned = std::make_unique<Strings>(std::move(reference), std::move(distorted));
  std::shared_ptr<Strings> strings;
  if (give_back) {
    strings.reset(owned.release(), [give_back = std::move(give_back)](Strings* done) {
      give_back(std::move(done->first));
      give_back(std::move(done->second));
      delete done;
    });
  } else {
    strings = std::move(owned);
  }
  ReceivedPlanes planes;
  planes.reference = PlanePieces(Bytes(strings->first));
  planes.distorted = PlanePieces(Bytes(strings->second));
  planes.storage = std::move(strings);
  return planes;
}

absl::StatusOr<std::optional<FrameChroma>> ChromaToScore(const Geometry& geometry,
                                                         const FeatureSet& features,
                                                         const ReceivedPlanes& planes,
                                                         absl::string_view field_prefix) {
  return PairChromaToScore(geometry, features, planes.reference_chroma, planes.distorted_chroma,
                           absl::StrCat(field_prefix, "reference_chroma"),
                           absl::StrCat(field_prefix, "distorted_chroma"));
}

absl::StatusOr<ReceivedClipMessage> ReadScoreClipRequestFromChunks(const Chunks& chunks) {
  // The usual encoding of a frame: one `frame` field spanning the whole message.
  ChunkReader reader(chunks);
  const size_t end = reader.size();
  uint64_t tag = 0;
  uint64_t length = 0;
  if (reader.ReadVarint(end, &tag, nullptr) &&
      tag == wire::Tag(wire::kClipFrameField, wire::WireType::kLengthDelimited) &&
      reader.ReadVarint(end, &length, nullptr) && length == end - reader.position()) {
    ReceivedClipMessage out;
    std::string rest;
    if (SplitFields(reader, end, {wire::kFrameReferenceField, &out.planes.reference},
                    {wire::kFrameDistortedField, &out.planes.distorted},
                    &rest) == SplitOutcome::kSplit) {
      v1::FramePair frame;
      if (frame.ParseFromString(rest)) {
        out.frame_index = frame.index();
        TakeChroma(frame, out.planes);
        return out;
      }
    }
  }
  return ParseWholeClipRequest(chunks);
}

absl::StatusOr<ReceivedPairMessage> ReadScorePairRequestFromChunks(const Chunks& chunks) {
  ChunkReader reader(chunks);
  ReceivedPairMessage out;
  std::string rest;
  if (SplitFields(reader, reader.size(), {wire::kPairReferenceField, &out.planes.reference},
                  {wire::kPairDistortedField, &out.planes.distorted},
                  &rest) == SplitOutcome::kSplit &&
      out.fields.ParseFromString(rest)) {
    TakeChroma(out.fields, out.planes);
    return out;
  }
  return ParseWholePairRequest(chunks);
}

}  // namespace ssimd
