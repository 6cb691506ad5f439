// The field numbers that the hand-written wire code of the frame messages uses (wire_format.h),
// taken once from the generated code, so a renumbering in ssimd.proto reaches client and server
// together.
#ifndef SSIMD_PROTO_WIRE_FIELDS_H_
#define SSIMD_PROTO_WIRE_FIELDS_H_

#include <cstdint>

#include "proto/ssimd/v1/ssimd.pb.h"

namespace ssimd::wire {

// ScoreClipRequest.frame, a FramePair.
inline constexpr uint32_t kClipFrameField = v1::ScoreClipRequest::kFrameFieldNumber;

// FramePair.
inline constexpr uint32_t kFrameIndexField = v1::FramePair::kIndexFieldNumber;
inline constexpr uint32_t kFrameReferenceField = v1::FramePair::kReferenceLumaFieldNumber;
inline constexpr uint32_t kFrameDistortedField = v1::FramePair::kDistortedLumaFieldNumber;
// Cb then Cr of each picture, sent only when a requested feature reads chroma.
inline constexpr uint32_t kFrameReferenceChromaField =
    v1::FramePair::kReferenceChromaFieldNumber;
inline constexpr uint32_t kFrameDistortedChromaField =
    v1::FramePair::kDistortedChromaFieldNumber;

// ScorePairRequest's planes; its other fields are serialized and parsed by protobuf.
inline constexpr uint32_t kPairReferenceField = v1::ScorePairRequest::kReferenceLumaFieldNumber;
inline constexpr uint32_t kPairDistortedField = v1::ScorePairRequest::kDistortedLumaFieldNumber;
inline constexpr uint32_t kPairReferenceChromaField =
    v1::ScorePairRequest::kReferenceChromaFieldNumber;
inline constexpr uint32_t kPairDistortedChromaField =
    v1::ScorePairRequest::kDistortedChromaFieldNumber;

}  // namespace ssimd::wire

#endif  // SSIMD_PROTO_WIRE_FIELDS_H_
