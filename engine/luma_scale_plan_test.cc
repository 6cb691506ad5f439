// Device-free properties of the plans; their bytes are compared with libswscale in
// engine/media/luma_scale_check_test.cc.
#include "engine/luma_scale_plan.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "engine/luma_scale_host.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace ssimd {
namespace {

using ::testing::HasSubstr;

constexpr ScalerKind kPlannedKinds[] = {ScalerKind::kBicubic, ScalerKind::kBilinear,
                                        ScalerKind::kLanczos, ScalerKind::kSpline};

TEST(LumaScalePlan, CoefficientsSumToTheUnitAndStayInsideThePicture) {
  for (ScalerKind kind : kPlannedKinds) {
    for (const auto& [from, to] : std::vector<std::pair<int, int>>{
             {240, 1080}, {1080, 240}, {17, 1000}, {1000, 999}, {5, 9}}) {
      absl::StatusOr<ScaleFilter1D> f = BuildSwscaleFilter(from, to, kind, 1 << 14, 4);
      ASSERT_TRUE(f.ok()) << f.status();
      ASSERT_EQ(f->first_input.size(), static_cast<size_t>(to));
      for (int i = 0; i < to; ++i) {
        int sum = 0;
        for (int t = 0; t < f->taps; ++t) sum += f->coefficients[i * f->taps + t];
        EXPECT_EQ(sum, 1 << 14) << ScalerKindName(kind) << " " << from << "->" << to << " @" << i;
        EXPECT_GE(f->first_input[i], 0);
        EXPECT_LE(f->first_input[i] + f->taps, std::max(from, f->taps));
      }
    }
  }
}

TEST(LumaScalePlan, RefusesWhatLibswscaleDoesDifferently) {
  const ScalerChoice bicubic{ScalerKind::kBicubic, false};
  const ScalerChoice neighbor{ScalerKind::kNeighbor, false};
  auto refused = [](const absl::StatusOr<LumaScalePlan>& p, const std::string& text) {
    EXPECT_EQ(p.status().code(), absl::StatusCode::kFailedPrecondition) << p.status();
    EXPECT_THAT(std::string(p.status().message()), HasSubstr(text));
  };
  refused(PlanLumaScale(1280, 1080, 1920, 1080, 8, bicubic, VerticalRounding::kWide),
          "equal heights");
  refused(PlanLumaScale(640, 360, 1920, 1080, 8, neighbor, VerticalRounding::kWide), "one-tap");
  refused(PlanLumaScale(8, 8, 1920, 1080, 8, bicubic, VerticalRounding::kWide), "under 16");
  refused(PlanLumaScale(640, 360, 1920, 1080, 9, bicubic, VerticalRounding::kWide), "9-bit");
  refused(PlanLumaScale(32768, 16384, 16, 16, 8, bicubic, VerticalRounding::kWide), "two passes");
}

// A chroma plan is the luma's construction at the chroma planes' stored sizes; libswscale's C code
// writes rows from luma row height - 2 on, which is a 4:2:0 plane's last row (and a 4:4:4
// plane's last two).
TEST(LumaScalePlan, ChromaPlansScaleTheStoredChromaPlanes) {
  const ScalerChoice bicubic{ScalerKind::kBicubic, false};
  absl::StatusOr<LumaScalePlan> luma =
      PlanLumaScale(853, 481, 1921, 1081, 8, bicubic, VerticalRounding::kPackedWords);
  ASSERT_TRUE(luma.ok()) << luma.status();
  EXPECT_EQ(luma->first_wide_row, 1079);
  absl::StatusOr<LumaScalePlan> c420 = PlanChromaScale(*luma, ChromaFormat::k420, bicubic);
  ASSERT_TRUE(c420.ok()) << c420.status();
  EXPECT_EQ(c420->src_width, 427);
  EXPECT_EQ(c420->src_height, 241);
  EXPECT_EQ(c420->dst_width, 961);
  EXPECT_EQ(c420->dst_height, 541);
  EXPECT_EQ(c420->first_wide_row, 540);
  EXPECT_EQ(c420->rounding, VerticalRounding::kPackedWords);
  absl::StatusOr<LumaScalePlan> again =
      PlanLumaScale(427, 241, 961, 541, 8, bicubic, VerticalRounding::kPackedWords);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(c420->horizontal.coefficients, again->horizontal.coefficients);
  EXPECT_EQ(c420->vertical.first_input, again->vertical.first_input);
  absl::StatusOr<LumaScalePlan> c422 = PlanChromaScale(*luma, ChromaFormat::k422, bicubic);
  ASSERT_TRUE(c422.ok()) << c422.status();
  EXPECT_EQ(c422->dst_height, 1081);
  EXPECT_EQ(c422->first_wide_row, 1079);
  EXPECT_EQ(PlanChromaScale(*luma, ChromaFormat::k400, bicubic).status().code(),
            absl::StatusCode::kFailedPrecondition);
  // Chroma planes under 16 samples a side are not planned, though the luma is.
  absl::StatusOr<LumaScalePlan> small =
      PlanLumaScale(24, 24, 96, 96, 8, bicubic, VerticalRounding::kWide);
  ASSERT_TRUE(small.ok()) << small.status();
  absl::StatusOr<LumaScalePlan> small_chroma =
      PlanChromaScale(*small, ChromaFormat::k420, bicubic);
  EXPECT_EQ(small_chroma.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(small_chroma.status().message()), HasSubstr("chroma planes"));
}

// The host model scales a packed picture's planes (the raw .yuv layout) with the plan and its
// chroma plan, and refuses bytes that do not fit: chroma without a chroma plan, another size.
TEST(LumaScalePlan, PackedPicturesAreScaledPlaneByPlane) {
  const ScalerChoice bicubic{ScalerKind::kBicubic, false};
  absl::StatusOr<LumaScalePlan> plan =
      PlanLumaScale(32, 18, 64, 36, 8, bicubic, VerticalRounding::kWide);
  ASSERT_TRUE(plan.ok()) << plan.status();
  const Geometry small{32, 18, 8, ChromaFormat::k444};
  const Geometry scored{64, 36, 8, ChromaFormat::k444};
  std::string in(FrameBytes(small), '\0');
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<char>((i * 7) % 251);
  const auto bytes = absl::MakeConstSpan(reinterpret_cast<const uint8_t*>(in.data()), in.size());
  std::string out;
  EXPECT_EQ(ScalePackedPictureOnHost(*plan, small, true, bytes, out).code(),
            absl::StatusCode::kInternal);  // no chroma plan yet
  ASSERT_TRUE(ScalePackedPictureOnHost(*plan, small, false, bytes.first(LumaBytes(small)), out)
                  .ok());
  const std::string luma_only = out;
  absl::StatusOr<LumaScalePlan> chroma = PlanChromaScale(*plan, ChromaFormat::k444, bicubic);
  ASSERT_TRUE(chroma.ok()) << chroma.status();
  plan->chroma = std::make_shared<const LumaScalePlan>(*chroma);
  ASSERT_TRUE(ScalePackedPictureOnHost(*plan, small, true, bytes, out).ok());
  ASSERT_EQ(out.size(), FrameBytes(scored));
  EXPECT_EQ(out.substr(0, LumaBytes(scored)), luma_only);
  // 4:4:4 chroma planes are scaled exactly as a luma plane of their size.
  std::string cb;
  ASSERT_TRUE(ScalePackedPictureOnHost(*plan, small, false,
                                       bytes.subspan(LumaBytes(small), LumaBytes(small)), cb)
                  .ok());
  EXPECT_EQ(out.substr(LumaBytes(scored), LumaBytes(scored)), cb);
  EXPECT_EQ(ScalePackedPictureOnHost(*plan, small, true, bytes.first(in.size() - 1), out).code(),
            absl::StatusCode::kInternal);
  const Geometry other{32, 18, 8, ChromaFormat::k420};  // the chroma plan is 4:4:4's
  EXPECT_EQ(ScalePackedPictureOnHost(*plan, other, true,
                                     bytes.first(FrameBytes(other)), out).code(),
            absl::StatusCode::kInternal);
}

}  // namespace
}  // namespace ssimd
