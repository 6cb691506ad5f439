// The float_ms_ssim per-sample arithmetic (kernels/ms_ssim_math.h) against libvmaf's constants
// and rules as docs/numerics-ms-ssim.md states them, each checked by a plain re-derivation.
#include "kernels/ms_ssim_math.h"

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "base/double_bits.h"
#include "gtest/gtest.h"

namespace ssimd {
namespace {

// libvmaf's 9x9 low-pass table in its decimal spelling, indexed here by |row offset| (outer) and
// |column offset| (inner); the full table mirrors this quadrant.
const float kLowPassQuadrant[5][5] = {
    {0.363505f, 0.160885f, -0.047149f, -0.010146f, 0.016114f},
    {0.160885f, 0.071207f, -0.020867f, -0.004490f, 0.007132f},
    {-0.047149f, -0.020867f, 0.006115f, 0.001316f, -0.002090f},
    {-0.010146f, -0.004490f, 0.001316f, 0.000283f, -0.000450f},
    {0.016114f, 0.007132f, -0.002090f, -0.000450f, 0.000714f},
};

// libvmaf's 1-D low-pass taps (which its decimation does not use).
const float kLowPass1d[9] = {0.026727f, -0.016828f, -0.078201f, 0.266846f, 0.602914f,
                             0.266846f, -0.078201f, -0.016828f, 0.026727f};

TEST(LowPassTap, IsLibvmafsDecimalTable) {
  double sum = 0.0;
  for (int dv = -4; dv <= 4; ++dv) {
    for (int du = -4; du <= 4; ++du) {
      EXPECT_EQ(LowPassTap(dv, du), kLowPassQuadrant[std::abs(dv)][std::abs(du)]) << dv << du;
      sum += LowPassTap(dv, du);
    }
  }
  EXPECT_NEAR(sum, 1.0, 1e-5);  // normalised only to the table's six decimals
}

TEST(LowPassTap, IsNotTheProductOfTheOneDimensionalTaps) {
  int differ = 0;
  for (int dv = -4; dv <= 4; ++dv) {
    for (int du = -4; du <= 4; ++du) {
      differ += LowPassTap(dv, du) != kLowPass1d[dv + 4] * kLowPass1d[du + 4];
    }
  }
  EXPECT_GT(differ, 40);  // a separable filter would be another filter, bit for bit
}

TEST(MsSsimSize, FiveFlooredHalvingsMustKeepElevenPixels) {
  EXPECT_EQ(kMsSsimMinSide, 176);
  EXPECT_TRUE(MsSsimSizeSupported(176, 176));
  EXPECT_FALSE(MsSsimSizeSupported(175, 176));
  EXPECT_FALSE(MsSsimSizeSupported(176, 175));
  EXPECT_TRUE(MsSsimSizeSupported(320, 180));
  EXPECT_FALSE(MsSsimSizeSupported(64, 64));
  EXPECT_FALSE(MsSsimSizeSupported(0, 0));
  for (int n = 1; n < 1000; ++n) {
    EXPECT_EQ(MsSsimSizeSupported(n, 4000), n / 16 >= 11) << n;
    EXPECT_EQ(MsSsimSizeSupported(4000, n), n / 16 >= 11) << n;
  }
}

TEST(MsSsimNextSide, HalvesRoundingUp) {
  EXPECT_EQ(MsSsimNextSide(1080), 540);
  EXPECT_EQ(MsSsimNextSide(135), 68);
  EXPECT_EQ(MsSsimNextSide(175), 88);
  EXPECT_EQ(MsSsimNextSide(11), 6);
  // A supported picture keeps at least 11 pixels at scale 4 under this halving, too.
  for (int n = 176; n < 2000; ++n) {
    int side = n;
    for (int scale = 1; scale < kMsSsimScales; ++scale) side = MsSsimNextSide(side);
    EXPECT_GE(side, 11) << n;
  }
}

// The decimation as a literal reading of the rule: one reflection at each edge, the 2-D table,
// binary32 products summed in binary64 row by row.
float NaiveDecimate(const std::vector<float>& plane, int w, int h, int x, int y) {
  auto mirror = [](int i, int n) { return i < 0 ? -1 - i : (i >= n ? 2 * n - 1 - i : i); };
  double sum = 0.0;
  for (int v = -4; v <= 4; ++v) {
    for (int u = -4; u <= 4; ++u) {
      const float sample = plane[mirror(2 * y + v, h) * w + mirror(2 * x + u, w)];
      const float product = sample * kLowPassQuadrant[std::abs(v)][std::abs(u)];
      sum += product;
    }
  }
  return static_cast<float>(sum);
}

TEST(LowPassDecimatePixel, MatchesTheLiteralRuleEverywhereIncludingEdges) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> value(0.0f, 255.0f);
  for (const auto& [w, h] : {std::pair{23, 17}, std::pair{24, 16}, std::pair{11, 11}}) {
    std::vector<float> plane(static_cast<size_t>(w) * h);
    for (float& v : plane) v = value(rng);
    for (int y = 0; y < MsSsimNextSide(h); ++y) {
      for (int x = 0; x < MsSsimNextSide(w); ++x) {
        ASSERT_EQ(LowPassDecimatePixel(plane.data(), w, h, x, y), NaiveDecimate(plane, w, h, x, y))
            << w << "x" << h << " at " << x << "," << y;
      }
    }
  }
}

TEST(LowPassDecimatePixel, Binary32AccumulationWouldDiffer) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> value(0.0f, 255.0f);
  const int w = 40, h = 40;
  std::vector<float> plane(static_cast<size_t>(w) * h);
  for (float& v : plane) v = value(rng);
  int differ = 0;
  for (int y = 3; y < 17; ++y) {
    for (int x = 3; x < 17; ++x) {
      float sum = 0.0f;
      for (int v = -4; v <= 4; ++v) {
        for (int u = -4; u <= 4; ++u) {
          sum += plane[(2 * y + v) * w + 2 * x + u] * LowPassTap(v, u);
        }
      }
      differ += sum != LowPassDecimatePixel(plane.data(), w, h, x, y);
    }
  }
  EXPECT_GT(differ, 20);
}

TEST(MsSsimExponents, AreLibvmafsBinary32Constants) {
  const float betas[5] = {0.0448f, 0.2856f, 0.3001f, 0.2363f, 0.1333f};
  for (int scale = 0; scale < kMsSsimScales; ++scale) {
    EXPECT_EQ(MsSsimContrastStructureExponent(scale), betas[scale]) << scale;
    EXPECT_EQ(MsSsimLuminanceExponent(scale), scale == 4 ? 0.1333f : 0.0f) << scale;
  }
}

TEST(MsSsimScaleMean, RoundsTheBinary64QuotientToBinary32) {
  const double sum = 12345.678901234567;
  EXPECT_EQ(MsSsimScaleMean(sum, 7, 3), static_cast<float>(sum / 21.0));
  EXPECT_EQ(MsSsimScaleMean(21.0, 7, 3), 1.0f);
}

// pow at run time, as libvmaf calls it (the compiler must not fold it at build time).
double RuntimePow(double x, double y) {
  volatile double vx = x;
  return std::pow(vx, y);
}

TEST(MsSsimScaleFactor, IsThreePowersMultipliedLeftToRight) {
  const float l = 0.99f, c = 0.97f, s = 0.95f;
  for (int scale = 0; scale < kMsSsimScales; ++scale) {
    const double beta = MsSsimContrastStructureExponent(scale);
    const double want =
        RuntimePow(l, MsSsimLuminanceExponent(scale)) * RuntimePow(c, beta) * RuntimePow(s, beta);
    EXPECT_TRUE(SameBits(MsSsimScaleFactor(scale, l, c, s), want)) << scale;
  }
  // Luminance does not count below scale 4, even where it is not a number.
  EXPECT_EQ(MsSsimScaleFactor(0, std::nanf(""), 1.0f, 1.0f), 1.0);
  // A negative structure mean makes the score NaN, as in libvmaf.
  EXPECT_TRUE(std::isnan(MsSsimScaleFactor(2, 1.0f, 1.0f, -0.5f)));
}

TEST(MsSsimCombine, MultipliesTheScalesInOrder) {
  float l[5] = {1, 1, 1, 1, 1}, c[5] = {1, 1, 1, 1, 1}, s[5] = {1, 1, 1, 1, 1};
  double score = 0;
  ASSERT_TRUE(MsSsimCombine(l, c, s, &score));
  EXPECT_EQ(score, 1.0);

  const float lv[5] = {0.9f, 0.91f, 0.92f, 0.93f, 0.94f};
  const float cv[5] = {0.81f, 0.82f, 0.83f, 0.84f, 0.85f};
  const float sv[5] = {0.71f, 0.72f, 0.73f, 0.74f, 0.75f};
  double want = 1.0;
  for (int i = 0; i < 5; ++i) want *= MsSsimScaleFactor(i, lv[i], cv[i], sv[i]);
  ASSERT_TRUE(MsSsimCombine(lv, cv, sv, &score));
  EXPECT_TRUE(SameBits(score, want));

  // libvmaf refuses an infinite running product.
  c[1] = std::numeric_limits<float>::infinity();
  EXPECT_FALSE(MsSsimCombine(l, c, s, &score));
}

}  // namespace
}  // namespace ssimd
