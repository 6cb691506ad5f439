// Integer ssim against a direct transcription of docs/numerics.md §10-§12 (2-D window loops, no
// separable passes, no bands, no threads), and the 16-bit constants: ssimd uses the true peak^2
// where libvmaf's int32 product wraps (docs/adr/0011).
#include "engine/cpu/integer_ssim.h"


#include "base/double_bits.h"
#include "base/thread_pool.h"
#include "engine/synthetic_picture.h"
#include "gtest/gtest.h"

namespace ssimd {
namespace {


// Spec 2.2-2.4 written out directly; `peak_squared` is the constant sm2 as a double.
double DirectIntegerSsim(const SyntheticPlane& ref, const SyntheticPlane& dist, double peak_squared) {
  static const int64_t k[9] = {2, 9, 28, 55, 68, 55, 28, 9, 2};
  const LumaView r = ref.view();
  const LumaView d = dist.view();
  double ssim = 0.0, ssimw = 0.0;
  for (int y = 0; y < ref.height; ++y) {
    for (int x = 0; x < ref.width; ++x) {
      int64_t mx = 0, my = 0, xx = 0, xy = 0, yy = 0, w = 0;
      for (int j = -4; j <= 4; ++j) {
        for (int i = -4; i <= 4; ++i) {
          const int yy_ = y + j, xx_ = x + i;
          if (yy_ < 0 || yy_ >= ref.height || xx_ < 0 || xx_ >= ref.width) continue;
          const int64_t kk = k[j + 4] * k[i + 4];
          const int64_t s = r.Sample(xx_, yy_), t = d.Sample(xx_, yy_);
          mx += kk * s;
          my += kk * t;
          xx += kk * s * s;
          xy += kk * s * t;
          yy += kk * t * t;
          w += kk;
        }
      }
      const double W = static_cast<double>(w);
      const double c1 = ((peak_squared * (0.01 * 0.01)) * W) * W;
      const double c2 = ((peak_squared * (0.03 * 0.03)) * W) * W;
      const double fmx = static_cast<double>(mx), fmy = static_cast<double>(my);
      const double mx2 = fmx * fmx, mxy = fmx * fmy, my2 = fmy * fmy;
      const double num = (W * (2 * mxy + c1)) * (c2 + 2 * (static_cast<double>(xy) * W - mxy));
      const double den = ((mx2 + my2) + c1) *
                         ((((static_cast<double>(xx) * W - mx2) + static_cast<double>(yy) * W) -
                           my2) +
                          c2);
      ssim += num / den;
      ssimw += W;
    }
  }
  return ssim / ssimw;
}

double TruePeakSquared(int bit_depth) {
  const double peak = static_cast<double>((1 << bit_depth) - 1);
  return peak * peak;
}

TEST(IntegerSsim, EqualsTheDirectFormulaAtEveryDepthAndSize) {
  ThreadPool pool(2, ThreadPool::Sizing::kWithCaller);
  for (int bd : {8, 10, 12, 16}) {
    for (auto [w, h] : {std::pair{1, 1}, {2, 3}, {9, 9}, {10, 4}, {37, 23}, {64, 64}, {130, 41}}) {
      const SyntheticPlane ref = TexturedPlane(w, h, bd, 7 * w + h);
      const SyntheticPlane dist = Distort(ref, w + 3 * h, 1 << (bd - 4));
      const double expected = DirectIntegerSsim(ref, dist, TruePeakSquared(bd));
      const double actual = ComputeIntegerSsim(ref.view(), dist.view(), pool);
      EXPECT_TRUE(SameBits(actual, expected))
          << bd << "-bit " << w << "x" << h << ": " << actual << " vs " << expected;
    }
  }
}

// At 16 bit, libvmaf's int32 65535*65535 wraps to -131071, making C1 and C2 negative and scores
// above 1 possible on near-black noise (docs/numerics.md §13). ssimd keeps the true constants: SSIM
// stays <= 1.
TEST(IntegerSsim, SixteenBitUsesTheTruePeakSquared) {
  ThreadPool pool(1, ThreadPool::Sizing::kWithCaller);
  const SyntheticPlane ref = NoisyPlane(32, 32, 16, 21, 3, 6);
  const SyntheticPlane dist = NoisyPlane(32, 32, 16, 22, 3, 6);
  const double ours = ComputeIntegerSsim(ref.view(), dist.view(), pool);
  EXPECT_TRUE(SameBits(ours, DirectIntegerSsim(ref, dist, 65535.0 * 65535.0)));
  EXPECT_LE(ours, 1.0);
  const double wrapped = DirectIntegerSsim(ref, dist, -131071.0);
  EXPECT_GT(wrapped, 1.0) << wrapped;  // what libvmaf prints here; documented, not reproduced
}

// SSIM does not depend on the sample scale when L scales with it: 8-bit content times 257 at
// 16 bit (peak 255 * 257 = 65535) scores the same up to rounding. The wrapped constant would not.
TEST(IntegerSsim, SixteenBitMatchesScaledEightBit) {
  ThreadPool pool(2, ThreadPool::Sizing::kWithCaller);
  const SyntheticPlane ref8 = TexturedPlane(50, 40, 8, 31);
  const SyntheticPlane dist8 = Distort(ref8, 32, 10);
  SyntheticPlane ref16(50, 40, 16), dist16(50, 40, 16);
  for (int y = 0; y < 40; ++y) {
    for (int x = 0; x < 50; ++x) {
      ref16.Set(x, y, ref8.view().Sample(x, y) * 257);
      dist16.Set(x, y, dist8.view().Sample(x, y) * 257);
    }
  }
  const double s8 = ComputeIntegerSsim(ref8.view(), dist8.view(), pool);
  const double s16 = ComputeIntegerSsim(ref16.view(), dist16.view(), pool);
  EXPECT_NEAR(s16, s8, 1e-12);
  EXPECT_GT(std::abs(DirectIntegerSsim(ref16, dist16, -131071.0) - s8), 1e-6);
}

TEST(IntegerSsim, DbEmitter) {
  FrameScores scores;
  IntegerSsimOptions db;
  db.enable_db = true;
  AddIntegerSsimScore(db, 0.99, scores);
  EXPECT_EQ(scores.at("ssim"), -10.0 * std::log10(1.0 - 0.99));
  AddIntegerSsimScore(IntegerSsimOptions{}, 0.99, scores);
  EXPECT_EQ(scores.at("ssim"), 0.99);
}

}  // namespace
}  // namespace ssimd
