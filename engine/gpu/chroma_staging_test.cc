#include "engine/gpu/chroma_staging.h"

#include <array>
#include <cstring>
#include <string>
#include <vector>

#include "engine/luma_scale_plan.h"
#include "engine/picture.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace ssimd {
namespace {

// Cb then Cr of `size` each, every sample different, at `bit_depth`.
std::vector<uint8_t> Planes(const PlaneSize& size, int bit_depth, int seed) {
  std::vector<uint8_t> bytes(2 * static_cast<size_t>(size.width) * size.height *
                             BytesPerSample(bit_depth));
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<uint8_t>(i * 31 + seed);
  if (bit_depth > 8) {
    for (size_t i = 1; i < bytes.size(); i += 2) bytes[i] &= 0x03;  // 10-bit samples
  }
  return bytes;
}

std::array<LumaView, 2> Views(const std::vector<uint8_t>& planes, const PlaneSize& stored,
                              const PlaneSize& shown, int bit_depth) {
  const size_t row = static_cast<size_t>(stored.width) * BytesPerSample(bit_depth);
  std::array<LumaView, 2> views;
  for (int p = 0; p < 2; ++p) {
    views[p] = LumaView{planes.data() + p * row * stored.height, row, shown.width, shown.height,
                        bit_depth};
  }
  return views;
}

// Whether `staged` holds `view`'s rows packed.
bool HoldsPacked(const uint8_t* staged, const LumaView& view) {
  const size_t row = static_cast<size_t>(view.width) * BytesPerSample(view.bit_depth);
  for (int y = 0; y < view.height; ++y) {
    if (std::memcmp(staged + y * row, view.data + y * view.stride_bytes, row) != 0) return false;
  }
  return true;
}

// Odd sides: libvmaf's chroma planes (sides rounded down) are read out of stored planes whose
// sides are rounded up, so every row is staged from inside a wider one.
TEST(ChromaStaging, PlanesAtLibvmafsSizesArePackedInOrder) {
  for (int bit_depth : {8, 10}) {
    const Geometry g{1921, 1081, bit_depth, ChromaFormat::k420};
    const PlaneSize stored = StoredChromaSize(g);
    const PlaneSize shown{960, 540};
    const std::vector<uint8_t> ref = Planes(stored, bit_depth, 1);
    const std::vector<uint8_t> dist = Planes(stored, bit_depth, 2);
    const FrameChroma chroma{Views(ref, stored, shown, bit_depth),
                             Views(dist, stored, shown, bit_depth)};
    const ChromaLayout layout = LayOutChroma(g, nullptr);
    EXPECT_FALSE(layout.upscaled);
    EXPECT_EQ(layout.scored.width, 960);
    EXPECT_EQ(layout.distorted.height, 540);
    const size_t plane = 960u * 540 * BytesPerSample(bit_depth);
    EXPECT_GE(layout.reference_plane, plane);
    EXPECT_EQ(layout.reference_plane % 256, 0u);
    EXPECT_EQ(layout.staged_bytes, layout.device_bytes);
    EXPECT_EQ(layout.distorted_input.width, 960);
    EXPECT_EQ(layout.distorted_input_plane, layout.distorted_plane);
    EXPECT_EQ(layout.distorted_at + layout.distorted_input_bytes, layout.staged_bytes);
    std::vector<uint8_t> staging(layout.staged_bytes);
    ASSERT_TRUE(StageChroma(g, chroma, nullptr, layout, staging.data()).ok());
    for (int p = 0; p < 2; ++p) {
      EXPECT_TRUE(HoldsPacked(staging.data() + p * layout.reference_plane, chroma.reference[p]));
      EXPECT_TRUE(HoldsPacked(staging.data() + layout.distorted_at + p * layout.distorted_plane,
                              chroma.distorted[p]));
    }
  }
}

// A rendition's chroma before its upscale goes into the upscale's block with the chroma plan's
// filters; on the device the upscaled planes keep their whole stored size.
TEST(ChromaStaging, ChromaBeforeItsUpscaleIsStagedWithItsFilters) {
  const ScalerChoice bicubic{ScalerKind::kBicubic, false};
  absl::StatusOr<LumaScalePlan> luma =
      PlanLumaScale(853, 481, 1921, 1081, 8, bicubic, VerticalRounding::kWide);
  ASSERT_TRUE(luma.ok()) << luma.status();
  absl::StatusOr<LumaScalePlan> plan = PlanChromaScale(*luma, ChromaFormat::k420, bicubic);
  ASSERT_TRUE(plan.ok()) << plan.status();
  const Geometry g{1921, 1081, 8, ChromaFormat::k420};
  const PlaneSize stored = StoredChromaSize(g);
  const PlaneSize small{427, 241};
  const std::vector<uint8_t> ref = Planes(stored, 8, 3);
  const std::vector<uint8_t> dist = Planes(small, 8, 4);
  const FrameChroma chroma{Views(ref, stored, PlaneSize{960, 540}, 8),
                           Views(dist, small, small, 8)};
  const ChromaLayout layout = LayOutChroma(g, &*plan);
  EXPECT_TRUE(layout.upscaled);
  EXPECT_EQ(layout.distorted.width, 961);
  EXPECT_EQ(layout.distorted.height, 541);
  EXPECT_EQ(layout.upscale.plane, 427u * 241);
  EXPECT_EQ(layout.distorted_input.width, 427);
  EXPECT_EQ(layout.distorted_input.height, 241);
  EXPECT_EQ(layout.distorted_input_plane, layout.upscale.plane);
  EXPECT_EQ(layout.distorted_input_bytes, layout.upscale.h_first);
  EXPECT_EQ(layout.staged_bytes, layout.distorted_at + layout.upscale.filters_end);
  std::vector<uint8_t> staging(layout.staged_bytes);
  ASSERT_TRUE(StageChroma(g, chroma, &*plan, layout, staging.data()).ok());
  const uint8_t* block = staging.data() + layout.distorted_at;
  for (int p = 0; p < 2; ++p) {
    EXPECT_TRUE(HoldsPacked(staging.data() + p * layout.reference_plane, chroma.reference[p]));
    EXPECT_TRUE(HoldsPacked(block + p * layout.upscale.plane, chroma.distorted[p]));
  }
  EXPECT_EQ(std::memcmp(block + layout.upscale.h_coefficients, plan->horizontal.coefficients.data(),
                        plan->horizontal.coefficients.size() * sizeof(int16_t)),
            0);
  EXPECT_EQ(std::memcmp(block + layout.upscale.v_first, plan->vertical.first_input.data(),
                        plan->vertical.first_input.size() * sizeof(int32_t)),
            0);
  // A picture of another size than the plan reads is refused, naming the plane.
  FrameChroma wrong = chroma;
  wrong.distorted[1].height -= 1;
  const absl::Status refused = StageChroma(g, wrong, &*plan, layout, staging.data());
  EXPECT_EQ(refused.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(refused.message()), ::testing::HasSubstr("distorted Cr"));
}

}  // namespace
}  // namespace ssimd
