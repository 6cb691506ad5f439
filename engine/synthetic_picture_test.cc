#include "engine/synthetic_picture.h"

#include <cstdlib>
#include <set>

#include "gtest/gtest.h"

namespace ssimd {
namespace {

TEST(SyntheticPlaneTest, StoresLittleEndianWordsAboveEightBits) {
  SyntheticPlane p(3, 2, 10);
  p.Set(2, 1, 0x3a5);
  EXPECT_EQ(p.bytes.size(), 12u);
  EXPECT_EQ(p.bytes[10], 0xa5);
  EXPECT_EQ(p.bytes[11], 0x03);
  EXPECT_EQ(p.Get(2, 1), 0x3a5u);
  EXPECT_EQ(p.view().Sample(2, 1), 0x3a5u);
  EXPECT_EQ(p.ToString().size(), LumaBytes(p.geometry()));
}

TEST(FlatPlaneTest, EverySampleHasTheValue) {
  const SyntheticPlane p = FlatPlane(5, 4, 12, 4000);
  for (int y = 0; y < 4; ++y) {
    for (int x = 0; x < 5; ++x) EXPECT_EQ(p.Get(x, y), 4000u);
  }
}

TEST(NoisyPlaneTest, StaysInItsRange) {
  const SyntheticPlane p = NoisyPlane(40, 30, 16, 9, 3, 6);
  std::set<uint32_t> seen;
  for (int y = 0; y < 30; ++y) {
    for (int x = 0; x < 40; ++x) seen.insert(p.Get(x, y));
  }
  EXPECT_EQ(*seen.begin(), 3u);
  EXPECT_EQ(*seen.rbegin(), 6u);
}

TEST(TexturedPlaneTest, DeterministicAndDifferentPerSeedAndFrame) {
  const Geometry g{64, 48, 10, ChromaFormat::k420};
  const SyntheticPlane a = TexturedPlane(g, 3);
  EXPECT_EQ(a.bytes, TexturedPlane(g, 3).bytes);
  EXPECT_NE(a.bytes, TexturedPlane(g, 4).bytes);
  EXPECT_NE(a.bytes, TexturedPlane(g, 3, 1).bytes);
}

TEST(TexturedPlaneTest, UsesMuchOfTheRangeWithoutSaturating) {
  for (int depth : {8, 10, 12, 16}) {
    const SyntheticPlane p = TexturedPlane(256, 128, depth, 1);
    const uint32_t peak = PeakValue(depth);
    uint32_t lo = peak, hi = 0;
    int clipped = 0;
    for (int y = 0; y < p.height; ++y) {
      for (int x = 0; x < p.width; ++x) {
        const uint32_t v = p.Get(x, y);
        lo = std::min(lo, v);
        hi = std::max(hi, v);
        clipped += v == 0 || v == peak;
      }
    }
    EXPECT_GT(hi - lo, peak / 2) << depth;
    EXPECT_LT(clipped, p.width * p.height / 4) << depth;
  }
}

TEST(DistortTest, MovesEachSampleByAtMostTheAmplitude) {
  const SyntheticPlane ref = TexturedPlane(50, 40, 8, 5);
  const SyntheticPlane dist = Distort(ref, 6, 4);
  EXPECT_NE(ref.bytes, dist.bytes);
  EXPECT_EQ(dist.bytes, Distort(ref, 6, 4).bytes);
  for (int y = 0; y < 40; ++y) {
    for (int x = 0; x < 50; ++x) {
      EXPECT_LE(std::abs(static_cast<int>(dist.Get(x, y)) - static_cast<int>(ref.Get(x, y))), 4);
    }
  }
}

TEST(DistortTest, QuantisesBeforeAddingNoise) {
  const SyntheticPlane ref = TexturedPlane(30, 20, 10, 7);
  const SyntheticPlane dist = Distort(ref, 1, 0, 3);
  for (int y = 0; y < 20; ++y) {
    for (int x = 0; x < 30; ++x) EXPECT_EQ(dist.Get(x, y), ref.Get(x, y) & ~7u);
  }
}

}  // namespace
}  // namespace ssimd
