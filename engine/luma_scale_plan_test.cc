// Device-free properties of the plans; their bytes are compared with libswscale in
// engine/media/luma_scale_check_test.cc.
#include "engine/luma_scale_plan.h"

#include <string>
#include <utility>
#include <vector>

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

}  // namespace
}  // namespace ssimd
