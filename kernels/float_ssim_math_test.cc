// The float_ssim per-sample arithmetic (kernels/float_ssim_math.h, ssim_constants.h) against the
// literal constants and rules of docs/numerics.md §5-§7 and §9.
#include "kernels/float_ssim_math.h"

#include <cmath>
#include <limits>
#include <random>

#include "base/double_bits.h"
#include "gtest/gtest.h"

namespace ssimd {
namespace {

// libvmaf's table, as its source spells it.
const float kTable[11] = {0.001028f, 0.007599f, 0.036001f, 0.109361f, 0.213006f, 0.266012f,
                          0.213006f, 0.109361f, 0.036001f, 0.007599f, 0.001028f};

TEST(GaussianWindow, TapsAreLibvmafsDecimalTable) {
  double sum = 0.0;
  for (int t = 0; t < kGaussianTaps; ++t) {
    EXPECT_EQ(GaussianTap(t), kTable[t]) << t;
    sum += GaussianTap(t);
  }
  EXPECT_EQ(sum, 1.0000020239967853);  // not normalised, used as is
}

TEST(SsimConstants, FollowFromK1K2AndL) {
  // Each step in binary32, as libvmaf forms them (K1 = 0.01f, K2 = 0.03f, L = 255).
  volatile float k1 = 0.01f, k2 = 0.03f, l = 255;
  const float k1l = k1 * l, k2l = k2 * l;
  const float c1 = k1l * k1l, c2 = k2l * k2l;
  EXPECT_EQ(kSsimC1, c1);
  EXPECT_EQ(kSsimC2, c2);
  EXPECT_EQ(kSsimC3, c2 / 2.0f);
  EXPECT_EQ(kSsimC1, 6.50249958f);
  EXPECT_EQ(kSsimC2, 58.5224953f);
}

TEST(GaussianDot, AccumulatesBinary32ProductsInBinary64TapOrder) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> value(0.0f, 65025.0f);
  int float_accumulation_differs = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    float v[11];
    for (float& x : v) x = value(rng);
    double acc = 0.0;
    float facc = 0.0f;
    for (int t = 0; t < 11; ++t) {
      const float p = v[t] * kTable[t];
      acc += static_cast<double>(p);
      facc += p;
    }
    ASSERT_EQ(GaussianDot(v), static_cast<float>(acc)) << trial;
    float_accumulation_differs += facc != static_cast<float>(acc);
  }
  // About half of all windows differ (docs/numerics.md §5); binary32 accumulation is not an option.
  EXPECT_GT(float_accumulation_differs, 2000);
}

GaussianMoments FlatMoments(float r, float d) {
  float window_r[11], window_d[11], rr[11], dd[11], rd[11];
  for (int t = 0; t < 11; ++t) {
    window_r[t] = r;
    window_d[t] = d;
    rr[t] = r * r;
    dd[t] = d * d;
    rd[t] = r * d;
  }
  // Flat planes: the horizontal pass gives the same value in every column, so the vertical pass
  // filters a flat column of it.
  auto twice = [](const float (&w)[11]) {
    const float h = GaussianDot(w);
    float col[11];
    for (float& c : col) c = h;
    return GaussianDot(col);
  };
  return GaussianMoments{twice(window_r), twice(window_d), twice(rr), twice(dd), twice(rd)};
}

// Spec section 5: flat windows at different levels give c = s = 1 exactly (the clamps at work)
// and l < 1.
TEST(FloatSsimPixel, FlatWindowsHaveUnitContrastAndStructure) {
  for (int a = 0; a < 256; a += 5) {
    for (int b = 0; b < 256; b += 7) {
      const SsimPixelTerms t = FloatSsimPixel(FlatMoments(a, b));
      EXPECT_EQ(t.c, 1.0) << a << " " << b;
      EXPECT_EQ(t.s, 1.0) << a << " " << b;
      if (a != b) {
        EXPECT_LT(t.l, 1.0) << a << " " << b;
      }
      EXPECT_EQ(t.ssim, (t.l * t.c) * t.s);
    }
  }
}

TEST(FloatSsimPixel, ClampsAsLibvmaf) {
  // Negative covariance with zero spread counts as no structure: s = C3 / C3 = 1.
  GaussianMoments m{10.0f, 10.0f, 100.0f, 100.0f, 99.0f};
  SsimPixelTerms t = FloatSsimPixel(m);
  EXPECT_EQ(t.s, 1.0);
  EXPECT_EQ(t.c, 1.0);
  // l's numerator is binary64, its denominator binary32: not exactly 1 here.
  EXPECT_EQ(t.l, (200.0 + kSsimC1) / static_cast<double>(200.0f + kSsimC1));
  EXPECT_NE(t.l, 1.0);
  // A variance below zero is clamped to 0 (so the spread is 0 and the covariance goes too).
  m = GaussianMoments{10.0f, 10.0f, 99.0f, 104.0f, 98.0f};
  t = FloatSsimPixel(m);
  EXPECT_EQ(t.s, 1.0);
  EXPECT_EQ(t.c, kSsimC2 / static_cast<double>(4.0f + kSsimC2));
  // With spread on both sides a negative covariance stays.
  m = GaussianMoments{10.0f, 10.0f, 104.0f, 104.0f, 98.0f};
  t = FloatSsimPixel(m);
  EXPECT_EQ(t.s, static_cast<double>((-2.0f + kSsimC3) / (4.0f + kSsimC3)));
  EXPECT_LT(t.s, 1.0);
}

TEST(FloatSsimPixel, MixesBinary32AndBinary64AsTheSpec) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> mu(0.0f, 255.0f);
  std::uniform_real_distribution<float> spread(0.0f, 400.0f);
  for (int trial = 0; trial < 10000; ++trial) {
    const float a = mu(rng), b = mu(rng);
    const GaussianMoments m{a, b, a * a + spread(rng), b * b + spread(rng), a * b + spread(rng) - 200};
    const SsimPixelTerms t = FloatSsimPixel(m);
    // Spec 1.7 transcribed.
    float vr = m.rr - a * a;
    if (vr < 0) vr = 0;
    float vd = m.dd - b * b;
    if (vd < 0) vd = 0;
    const float cov = m.rd - a * b;
    const float srsc = static_cast<float>(std::sqrt(static_cast<double>(vr * vd)));
    const double l = (2.0 * a * b + kSsimC1) / static_cast<double>((a * a + b * b) + kSsimC1);
    const double c = (2.0 * srsc + kSsimC2) / static_cast<double>((vr + vd) + kSsimC2);
    const float covc = (cov < 0 && srsc <= 0) ? 0.0f : cov;
    const double s = static_cast<double>((covc + kSsimC3) / (srsc + kSsimC3));
    ASSERT_TRUE(SameBits(t.l, l)) << trial;
    ASSERT_TRUE(SameBits(t.c, c)) << trial;
    ASSERT_TRUE(SameBits(t.s, s)) << trial;
    ASSERT_TRUE(SameBits(t.ssim, (l * c) * s)) << trial;
  }
}

TEST(FloatSsimMean, RoundsToBinary32AndFollowsLibvmafBelowTheWindow) {
  EXPECT_EQ(FloatSsimMean(0.3, 1, 1), static_cast<double>(0.3f));
  EXPECT_TRUE(std::isnan(FloatSsimMean(0.0, 0, 5)));
  EXPECT_TRUE(std::isnan(FloatSsimMean(0.0, 7, 0)));
  const double minus = FloatSsimMean(0.0, -3, 4);
  EXPECT_TRUE(minus == 0.0 && std::signbit(minus));
  const double plus = FloatSsimMean(0.0, -3, -4);
  EXPECT_TRUE(plus == 0.0 && !std::signbit(plus));
}

struct Means {
  double a, b, c, d;
};

// GCC 12.2 at -O2 folds a vectorised double->float->double round trip away when such conversions
// sit side by side (docs/adr/0012); the build turns that vectoriser off. This is the shape that
// broke the CPU engine (one mean, then three more under a condition), kept so that a change of
// flags or compiler cannot go unnoticed.
__attribute__((noinline)) Means SeveralMeans(double s0, double s1, double s2, double s3, int w,
                                             int h, bool all) {
  Means m;
  m.a = FloatSsimMean(s0, w, h);
  if (all) {
    m.b = FloatSsimMean(s1, w, h);
    m.c = FloatSsimMean(s2, w, h);
    m.d = FloatSsimMean(s3, w, h);
  }
  return m;
}

TEST(FloatSsimMean, EveryMeanIsRoundedWhenSeveralAreFormedTogether) {
  volatile double base = 0.1;
  volatile bool all = true;
  const Means m = SeveralMeans(base, 2 * base, 3 * base, 7 * base, 3, 1, all);
  for (double v : {m.a, m.b, m.c, m.d}) {
    EXPECT_EQ(static_cast<double>(static_cast<float>(v)), v) << std::hexfloat << v;
  }
}

}  // namespace
}  // namespace ssimd
