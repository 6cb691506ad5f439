// The integer ssim per-pixel arithmetic (kernels/integer_ssim_math.h) against
// docs/numerics.md §10-§13.
#include "kernels/integer_ssim_math.h"

#include <cmath>

#include "gtest/gtest.h"

namespace ssimd {
namespace {

// libvmaf's gaussian_filter_init(sigma = 1.5, max_len = 5) with KERNEL_WEIGHT 256
// (docs/numerics.md §10).
TEST(IntegerWindow, TapsFollowLibvmafsConstruction) {
  const double sigma = 1.5;
  const int radius =
      static_cast<int>(std::floor(sigma * std::sqrt(-2.0 * std::log(std::sqrt(M_PI / 2) * sigma / 256))));
  ASSERT_EQ(radius, kIntegerRadius);
  ASSERT_EQ(kIntegerTaps, 2 * radius + 1);
  int64_t side_sum = 0;
  for (int i = 1; i <= radius; ++i) {
    const auto tap = static_cast<int64_t>(static_cast<unsigned>(
        256 * std::exp(-i * i / (2 * sigma * sigma)) / (std::sqrt(2 * M_PI) * sigma) + 0.5));
    EXPECT_EQ(IntegerTap(radius + i), tap) << i;
    EXPECT_EQ(IntegerTap(radius - i), tap) << i;
    side_sum += tap;
  }
  EXPECT_EQ(IntegerTap(radius), 256 - 2 * side_sum);
}

TEST(IntegerWindow, ClippedWeights) {
  EXPECT_EQ(ClippedWindowWeight(100, 1000), 256);
  EXPECT_EQ(ClippedWindowWeight(4, 9), 256);
  EXPECT_EQ(ClippedWindowWeight(0, 1000), 68 + 55 + 28 + 9 + 2);
  EXPECT_EQ(ClippedWindowWeight(999, 1000), 68 + 55 + 28 + 9 + 2);
  EXPECT_EQ(ClippedWindowWeight(1, 1000), 256 - (2 + 9 + 28));
  EXPECT_EQ(ClippedWindowWeight(0, 1), 68);
  EXPECT_EQ(ClippedWindowWeight(1, 2), 68 + 55);
}

// ssimd's one deliberate difference from libvmaf: at 16 bit the fork's int32 peak*peak wraps to
// -131071; ssimd uses the true value (docs/adr/0011). Below 16 bit they agree.
TEST(IntegerSsimPeakSquared, IsTheTrueSquareAtEveryDepth) {
  EXPECT_EQ(IntegerSsimPeakSquared(8), 65025.0);
  EXPECT_EQ(IntegerSsimPeakSquared(10), 1046529.0);
  EXPECT_EQ(IntegerSsimPeakSquared(12), 16769025.0);
  EXPECT_EQ(IntegerSsimPeakSquared(16), 4294836225.0);
  for (int bd : {8, 10, 12}) {
    const int peak = (1 << bd) - 1;
    EXPECT_EQ(IntegerSsimPeakSquared(bd), static_cast<double>(peak * peak)) << bd;
  }
}

// An identical window's term is W up to an ulp (docs/numerics.md §14): ((W f) g) / (f g).
TEST(IntegerSsimPixel, IdenticalWindowsScoreTheirWeight) {
  for (int bd : {8, 16}) {
    const int64_t peak = (int64_t{1} << bd) - 1;
    for (int64_t v : {int64_t{0}, int64_t{3}, peak / 2, peak}) {
      IntegerMoments m;
      for (int j = 0; j < 9; ++j) {
        for (int i = 0; i < 9; ++i) AccumulateMoments(m, IntegerTap(i) * IntegerTap(j), v, v);
      }
      ASSERT_EQ(m.w, 65536);
      const double term = IntegerSsimPixel(m, IntegerSsimPeakSquared(bd));
      EXPECT_NEAR(term, 65536.0, 65536.0 * 0x1p-51) << bd << " " << v;
    }
  }
}

TEST(IntegerMoments, SixteenBitMomentsStayExact) {
  IntegerMoments row;
  for (int i = 0; i < 9; ++i) AccumulateMoments(row, IntegerTap(i), 65535, 65535);
  IntegerMoments m;
  for (int j = 0; j < 9; ++j) AccumulateWeighted(m, IntegerTap(j), row);
  EXPECT_EQ(m.w, 65536);
  EXPECT_EQ(m.xx, int64_t{65536} * 65535 * 65535);
  EXPECT_LT(m.xx, int64_t{1} << 53);  // converts to double exactly
  EXPECT_EQ(m.mx, int64_t{65536} * 65535);
}

}  // namespace
}  // namespace ssimd
