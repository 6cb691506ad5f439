// dB conversions (kernels/db.h) against libvmaf's rules and values (docs/numerics.md §8).
#include "kernels/db.h"

#include <cmath>
#include <limits>

#include "gtest/gtest.h"

namespace ssimd {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(FloatSsimMaxDb, SpecExamples) {
  EXPECT_EQ(FloatSsimMaxDb(true, 8, 64, 64), 88.0);
  EXPECT_EQ(FloatSsimMaxDb(true, 10, 64, 64), 100.0);
  EXPECT_EQ(FloatSsimMaxDb(true, 8, 1920, 1080), 115.0);
  EXPECT_EQ(FloatSsimMaxDb(true, 10, 1920, 1080), 127.0);
  EXPECT_EQ(FloatSsimMaxDb(true, 8, 3840, 2160), 121.0);
  EXPECT_EQ(FloatSsimMaxDb(true, 16, 3840, 2160), 169.0);
  EXPECT_EQ(FloatSsimMaxDb(true, 8, 10, 10), 72.0);
  EXPECT_EQ(FloatSsimMaxDb(false, 8, 64, 64), kInf);
}

TEST(FloatSsimToDb, FollowsCsMinMacro) {
  EXPECT_NEAR(FloatSsimToDb(1.0 - std::ldexp(1.0, -24), kInf), 72.2471989593555, 1e-12);
  EXPECT_EQ(FloatSsimToDb(1.0, kInf), kInf);
  EXPECT_EQ(FloatSsimToDb(1.0, 88.0), 88.0);
  EXPECT_EQ(FloatSsimToDb(1.0 + std::ldexp(1.0, -23), 88.0), 88.0);  // log10 of < 0 is NaN
  EXPECT_EQ(FloatSsimToDb(1.0 + std::ldexp(1.0, -23), kInf), kInf);
  EXPECT_EQ(FloatSsimToDb(std::numeric_limits<double>::quiet_NaN(), 72.0), 72.0);
  for (double zero : {0.0, -0.0}) {
    const double db = FloatSsimToDb(zero, 88.0);
    EXPECT_TRUE(db == 0.0 && std::signbit(db)) << zero;
  }
  EXPECT_EQ(FloatSsimToDb(0.9, kInf), -10.0 * std::log10(1.0 - 0.9));
}

TEST(IntegerSsimToDb, InfinityAtOrAboveOne) {
  EXPECT_EQ(IntegerSsimToDb(1.0 - std::ldexp(1.0, -52)), 156.53559774527022);  // §8
  EXPECT_NEAR(IntegerSsimToDb(1.0 - std::ldexp(1.0, -53)), 159.5459, 1e-4);   // §8
  EXPECT_EQ(IntegerSsimToDb(1.0), kInf);
  EXPECT_EQ(IntegerSsimToDb(1.0 + std::ldexp(1.0, -52)), kInf);
  EXPECT_EQ(IntegerSsimToDb(0.5), -10.0 * std::log10(0.5));
}

}  // namespace
}  // namespace ssimd
