#include "engine/scorer.h"

#include <string>

#include "gtest/gtest.h"

namespace ssimd {
namespace {

// Records the views Score was given.
class RecordingScorer final : public Scorer {
 public:
  std::string_view name() const override { return "recording"; }
  absl::Status CheckContext(const Geometry&, const FeatureSet&) const override {
    return absl::OkStatus();
  }
  absl::StatusOr<ScoreResult> Score(const Geometry&, const FeatureSet&,
                                    const FramePair& pair) override {
    reference.assign(pair.reference.data,
                     pair.reference.data + pair.reference.stride_bytes * pair.reference.height);
    distorted.assign(pair.distorted.data,
                     pair.distorted.data + pair.distorted.stride_bytes * pair.distorted.height);
    reference_data = pair.reference.data;
    ScoreResult result;
    result.backend = "recording";
    return result;
  }
  std::string reference, distorted;
  const uint8_t* reference_data = nullptr;
};

absl::Span<const uint8_t> Span(const std::string& s, size_t from, size_t n) {
  return absl::Span<const uint8_t>(reinterpret_cast<const uint8_t*>(s.data()) + from, n);
}

const Geometry kGeometry{4, 2, 10, ChromaFormat::k420};  // 16 bytes per plane

TEST(ScorerTest, ScorePiecesHandsOnePieceOverAsIsAndGathersSeveral) {
  const std::string ref = "0123456789abcdef";
  const std::string dis = "ABCDEFGHIJKLMNOP";
  PlanePieces ref_pieces(Span(ref, 0, 16));
  PlanePieces dis_pieces;
  dis_pieces.Add(Span(dis, 0, 5));  // splits a 16-bit sample
  dis_pieces.Add(Span(dis, 5, 11));
  RecordingScorer scorer;
  auto result = scorer.ScorePieces(kGeometry, FeatureSet{}, {&ref_pieces, &dis_pieces});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(scorer.reference_data, reinterpret_cast<const uint8_t*>(ref.data()));
  EXPECT_EQ(scorer.reference, ref);
  EXPECT_EQ(scorer.distorted, dis);
}

TEST(ScorerTest, ScorePiecesRefusesPlanesOfTheWrongSize) {
  const std::string bytes = "0123456789abcdef";
  PlanePieces whole(Span(bytes, 0, 16));
  PlanePieces short_plane(Span(bytes, 0, 15));
  RecordingScorer scorer;
  auto result = scorer.ScorePieces(kGeometry, FeatureSet{}, {&whole, &short_plane});
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(result.status().message().find("distorted luma"), std::string::npos)
      << result.status();
  EXPECT_TRUE(scorer.reference.empty());  // Score was not called
}

}  // namespace
}  // namespace ssimd
