#include "engine/scorer.h"

#include <memory>
#include <optional>
#include <string>

#include "engine/fake_device_plane.h"
#include "engine/luma_scale_host.h"
#include "engine/luma_scale_plan.h"
#include "engine/psnr_scores.h"
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
    distorted_chroma.clear();
    if (pair.chroma != nullptr) {
      for (const LumaView& plane : pair.chroma->distorted) {
        const char* rows = reinterpret_cast<const char*>(plane.data);
        for (int y = 0; y < plane.height; ++y) {
          distorted_chroma.append(rows + y * plane.stride_bytes, plane.width);
        }
      }
    }
    ScoreResult result;
    result.backend = "recording";
    return result;
  }
  std::string reference, distorted;
  std::string distorted_chroma;  // Cb then Cr rows, as Score saw them (8-bit)
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

TEST(ScorerTest, ScorePiecesCopiesPlanesOnADeviceToTheHost) {
  const std::string ref = "0123456789abcdef";
  const std::string dis = "ABCDEFGHIJKLMNOP";
  const FakeDevicePlane ref_device(ref, 4, 2, 10);
  const FakeDevicePlane dis_device(dis, 4, 2, 10);
  const PlanePieces ref_pieces(ref_device);
  const PlanePieces dis_pieces(dis_device);
  RecordingScorer scorer;
  auto result = scorer.ScorePieces(kGeometry, FeatureSet{}, {&ref_pieces, &dis_pieces});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(scorer.reference, ref);
  EXPECT_EQ(scorer.distorted, dis);
  EXPECT_EQ(ref_device.copies, 1);
  EXPECT_EQ(dis_device.copies, 1);
}

TEST(ScorerTest, ScorePiecesReturnsAFailedCopyFromTheDevice) {
  const std::string bytes = "0123456789abcdef";
  const PlanePieces whole(Span(bytes, 0, 16));
  const FakeDevicePlane lost(bytes, 4, 2, 10, absl::UnavailableError("the GPU was lost"));
  const PlanePieces on_device(lost);
  RecordingScorer scorer;
  auto result = scorer.ScorePieces(kGeometry, FeatureSet{}, {&whole, &on_device});
  EXPECT_EQ(result.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_TRUE(scorer.distorted.empty());
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

// A distorted plane with an upscale plan reaches Score at the pair's size, as the plan's host
// model scales it; a plane of the wrong size, or a plan for another size, is refused.
TEST(ScorerTest, ScorePiecesUpscalesTheDistortedPlaneWithItsPlan) {
  const Geometry big{48, 40, 8, ChromaFormat::k420};
  absl::StatusOr<LumaScalePlan> plan = PlanLumaScale(
      20, 18, 48, 40, 8, ScalerChoice{ScalerKind::kBicubic, false}, VerticalRounding::kPackedWords);
  ASSERT_TRUE(plan.ok()) << plan.status();
  std::string small(20 * 18, '\0');
  for (size_t i = 0; i < small.size(); ++i) small[i] = static_cast<char>((i * 37) % 251);
  const std::string ref(48 * 40, 'r');
  std::string expected(48 * 40, '\0');
  ScaleLumaOnHost(*plan, reinterpret_cast<const uint8_t*>(small.data()), 20,
                  reinterpret_cast<uint8_t*>(expected.data()), 48);
  PlanePieces ref_pieces(Span(ref, 0, ref.size()));
  PlanePieces small_pieces;
  small_pieces.Add(Span(small, 0, 100));
  small_pieces.Add(Span(small, 100, small.size() - 100));
  RecordingScorer scorer;
  auto result =
      scorer.ScorePieces(big, FeatureSet{}, {&ref_pieces, &small_pieces, &plan.value()});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(scorer.distorted, expected);
  EXPECT_NE(scorer.distorted, std::string(48 * 40, '\0'));

  PlanePieces short_pieces(Span(small, 0, small.size() - 1));
  result = scorer.ScorePieces(big, FeatureSet{}, {&ref_pieces, &short_pieces, &plan.value()});
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(result.status().message().find("before its upscale"), std::string::npos)
      << result.status();

  const Geometry other{48, 41, 8, ChromaFormat::k420};
  const std::string other_ref(48 * 41, 'r');
  PlanePieces other_ref_pieces(Span(other_ref, 0, other_ref.size()));
  result =
      scorer.ScorePieces(other, FeatureSet{}, {&other_ref_pieces, &small_pieces, &plan.value()});
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInternal);
}

// With chroma, the distorted chroma arrives whole at the plan's source size and reaches Score
// upscaled by the chroma plan, at libvmaf's plane sizes; without a chroma plan it is refused.
TEST(ScorerTest, ScorePiecesUpscalesTheDistortedChromaWithItsChromaPlan) {
  const Geometry big{48, 40, 8, ChromaFormat::k444};
  const Geometry small{20, 18, 8, ChromaFormat::k444};
  const ScalerChoice bicubic{ScalerKind::kBicubic, false};
  absl::StatusOr<LumaScalePlan> luma =
      PlanLumaScale(20, 18, 48, 40, 8, bicubic, VerticalRounding::kPackedWords);
  ASSERT_TRUE(luma.ok()) << luma.status();
  absl::StatusOr<LumaScalePlan> chroma_plan = PlanChromaScale(*luma, ChromaFormat::k444, bicubic);
  ASSERT_TRUE(chroma_plan.ok()) << chroma_plan.status();
  LumaScalePlan plan = *luma;
  plan.chroma = std::make_shared<const LumaScalePlan>(*chroma_plan);
  std::string small_frame(FrameBytes(small), '\0');
  for (size_t i = 0; i < small_frame.size(); ++i) {
    small_frame[i] = static_cast<char>((i * 53) % 241);
  }
  const std::string ref(FrameBytes(big), 'r');
  std::string expected(2 * 48 * 40, '\0');
  for (int p = 0; p < 2; ++p) {
    ScaleLumaOnHost(*chroma_plan,
                    reinterpret_cast<const uint8_t*>(small_frame.data()) + (1 + p) * 20 * 18, 20,
                    reinterpret_cast<uint8_t*>(expected.data()) + p * 48 * 40, 48);
  }
  FeatureSet features;
  features.psnr = PsnrOptions{};
  absl::StatusOr<std::optional<FrameChroma>> chroma = PairChromaToScore(
      big, features, Span(ref, LumaBytes(big), 2 * LumaBytes(big)),
      Span(small_frame, LumaBytes(small), 2 * LumaBytes(small)), "reference chroma",
      "distorted chroma", &plan);
  ASSERT_TRUE(chroma.ok() && chroma->has_value()) << chroma.status();
  PlanePieces ref_pieces(Span(ref, 0, LumaBytes(big)));
  PlanePieces small_pieces(Span(small_frame, 0, LumaBytes(small)));
  RecordingScorer scorer;
  auto result = scorer.ScorePieces(big, features,
                                   {&ref_pieces, &small_pieces, &plan, &**chroma});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(scorer.distorted_chroma, expected);

  // The same chroma left on a device (an engine's interleaved plane) is copied here first.
  auto ref_chroma_on_device = std::make_shared<FakeDevicePlane>(
      ref.substr(LumaBytes(big)), big.width, big.height, 8);
  auto small_chroma_on_device = std::make_shared<FakeDevicePlane>(
      small_frame.substr(LumaBytes(small)), small.width, small.height, 8);
  ref_chroma_on_device->set_interleaved_planes(2);
  small_chroma_on_device->set_interleaved_planes(2);
  absl::StatusOr<std::optional<FrameChroma>> on_device = PairChromaToScore(
      big, features, {}, {}, "reference chroma", "distorted chroma", &plan,
      ChromaOnDevice{ref_chroma_on_device.get(), small_chroma_on_device.get()});
  ASSERT_TRUE(on_device.ok() && on_device->has_value()) << on_device.status();
  EXPECT_EQ((*on_device)->distorted[0].data, nullptr);
  scorer.distorted_chroma.clear();
  result = scorer.ScorePieces(big, features, {&ref_pieces, &small_pieces, &plan, &**on_device});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(scorer.distorted_chroma, expected);
  EXPECT_EQ(ref_chroma_on_device->copies, 1);
  EXPECT_EQ(small_chroma_on_device->copies, 1);
  // A device plane of another size is not the picture's chroma.
  EXPECT_EQ(PairChromaToScore(big, features, {}, {}, "r", "d", &plan,
                              ChromaOnDevice{small_chroma_on_device.get(), nullptr})
                .status()
                .code(),
            absl::StatusCode::kInternal);

  // The luma's plan alone cannot scale the chroma.
  result = scorer.ScorePieces(big, features, {&ref_pieces, &small_pieces, &*luma, &**chroma});
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInternal) << result.status();
  EXPECT_EQ(PairChromaToScore(big, features, Span(ref, LumaBytes(big), 2 * LumaBytes(big)),
                              Span(small_frame, LumaBytes(small), 2 * LumaBytes(small)), "r",
                              "d", &*luma)
                .status()
                .code(),
            absl::StatusCode::kInternal);
}

}  // namespace
}  // namespace ssimd
