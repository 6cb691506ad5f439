// The psnr arithmetic (kernels/psnr_math.h) against libvmaf's rules: the peak and cap per bit
// depth, the 1e-16 mse floor, min_sse, and apsnr with its 64-bit cap product.
#include "kernels/psnr_math.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "gtest/gtest.h"

namespace ssimd {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// GCC folds log10 of a constant with a correctly rounded result, while glibc's log10 at run time
// (which libvmaf's numbers come from) is off by one ulp for some arguments, e.g. 7225. Every value
// that reaches a log10 here passes through Runtime(), so both sides are computed as libvmaf does.
double Runtime(double x) {
  volatile double v = x;
  return v;
}
uint64_t Opaque(uint64_t x) {
  volatile uint64_t v = x;
  return v;
}
double Log10(double x) { return std::log10(Runtime(x)); }

TEST(PsnrPeak, PerBitDepth) {
  EXPECT_EQ(PsnrPeak(8, false), 255u);
  EXPECT_EQ(PsnrPeak(10, false), 1023u);
  EXPECT_EQ(PsnrPeak(12, false), 4095u);
  EXPECT_EQ(PsnrPeak(16, false), 65535u);
  // reduced_hbd_peak: the 8-bit peak shifted up, the same at 8 bits.
  EXPECT_EQ(PsnrPeak(8, true), 255u);
  EXPECT_EQ(PsnrPeak(10, true), 1020u);
  EXPECT_EQ(PsnrPeak(12, true), 4080u);
  EXPECT_EQ(PsnrPeak(16, true), 65280u);
  EXPECT_EQ(PsnrPeakSquared(65535), 4294836225u);
}

TEST(PsnrMax, SixDecibelsPerBitPlusTwelve) {
  EXPECT_EQ(PsnrMax(8, 255, 0.0, 100), 60.0);
  EXPECT_EQ(PsnrMax(10, 1023, 0.0, 100), 72.0);
  EXPECT_EQ(PsnrMax(12, 4095, 0.0, 100), 84.0);
  EXPECT_EQ(PsnrMax(16, 65535, 0.0, 100), 108.0);
}

TEST(PsnrMax, MinSseCapsAtTheRoundedUpPsnrOfThatError) {
  // 1080p luma with min_sse 0.5: 10*log10(65025 * 2073600 / 0.5) = 114.3 -> 115.
  EXPECT_EQ(PsnrMax(8, 255, Runtime(0.5), 1920u * 1080u), 115.0);
  EXPECT_EQ(PsnrMax(8, 255, Runtime(0.5), 1920u * 1080u),
            std::ceil(10.0 * Log10(65025.0 / (0.5 / 2073600.0))));
  // An error of 1 over one pixel: exactly 10*log10(peak^2), rounded up.
  EXPECT_EQ(PsnrMax(10, 1023, Runtime(1.0), 1), std::ceil(10.0 * Log10(1046529.0)));
  // An empty plane divides by zero: -inf, so every psnr of that plane is -inf.
  EXPECT_EQ(PsnrMax(8, 255, Runtime(0.5), 0), -kInf);
  EXPECT_EQ(PsnrFromMse(Runtime(PsnrMse(0, 0)), 255, -kInf), -kInf);
}

TEST(PlaneSquaredError, ExactIntegerSums) {
  const std::vector<uint8_t> ref = {10, 20, 30, 40, 50, 60};
  const std::vector<uint8_t> dist = {10, 25, 30, 37, 50, 61};
  EXPECT_EQ(RowSquaredError(ref.data(), dist.data(), 6), 25u + 9u + 1u);
  // Two rows of two, stride 3: samples 0,1 and 3,4.
  EXPECT_EQ(PlaneSquaredError(ref.data(), 3, dist.data(), 3, 2, 2), 25u + 9u);
  // The largest 16-bit error squared does not fit a signed 32-bit int.
  const std::vector<uint16_t> hi = {65535, 0, 65535};
  const std::vector<uint16_t> lo = {0, 65535, 65535};
  EXPECT_EQ(RowSquaredError(hi.data(), lo.data(), 3), uint64_t{2} * 4294836225u);
}

TEST(PsnrFromMse, IdenticalPlanesHitTheCapAtEveryDepth) {
  for (const int bits : {8, 10, 12, 16}) {
    const uint32_t peak = PsnrPeak(bits, false);
    const double cap = PsnrMax(bits, peak, 0.0, 64);
    EXPECT_EQ(PsnrFromMse(Runtime(PsnrMse(0, 64)), peak, cap), 6.0 * bits + 12.0) << bits;
  }
}

TEST(PsnrFromMse, EmptyPlaneGivesTheCapAndANanMse) {
  const double mse = PsnrMse(0, 0);
  EXPECT_TRUE(std::isnan(mse));
  EXPECT_EQ(PsnrFromMse(mse, 255, 60.0), 60.0);
}

TEST(PsnrFromMse, OneSampleDifference) {
  // libvmaf's own values (reference set): a 1x1 frame five levels off, and a flat 320x180
  // frame three levels off everywhere.
  EXPECT_EQ(PsnrFromMse(Runtime(PsnrMse(25, 1)), 255, 60.0), 34.15140352195873);
  EXPECT_EQ(PsnrFromMse(Runtime(PsnrMse(9 * 320 * 180, 320 * 180)), 255, 60.0), 38.58837851428586);
  // One sample of 16 off by two: mse 1/4 -> 10*log10(65025*4).
  const double mse = PsnrMse(4, 16);
  EXPECT_EQ(mse, 0.25);
  EXPECT_EQ(PsnrFromMse(Runtime(mse), 255, 60.0), 10.0 * Log10(65025.0 / 0.25));
  // One off by one is above the cap: 60.17 dB -> 60.
  EXPECT_EQ(PsnrFromMse(Runtime(PsnrMse(1, 16)), 255, 60.0), 60.0);
  // Every level apart: 0 dB.
  EXPECT_EQ(PsnrFromMse(Runtime(PsnrMse(4294836225u, 1)), 65535, 108.0), 0.0);
}

TEST(PsnrFromMse, HighBitDepthPeaks) {
  EXPECT_EQ(PsnrFromMse(Runtime(1.0), 1023, 72.0), 10.0 * Log10(1046529.0));
  EXPECT_EQ(PsnrFromMse(Runtime(1.0), 4095, 84.0), 10.0 * Log10(16769025.0));
  EXPECT_EQ(PsnrFromMse(Runtime(1.0), 65535, 108.0), 10.0 * Log10(4294836225.0));
  // reduced_hbd_peak at 10 bits: 10*log10(1020^2 / 16) = 10*log10(65025): the 8-bit psnr of an
  // error of 1, for content scaled up by 4.
  EXPECT_EQ(PsnrFromMse(Runtime(16.0), PsnrPeak(10, true), 72.0), 10.0 * Log10(1040400.0 / 16.0));
}

TEST(PsnrFromMse, TinyMseIsFlooredAt1e16) {
  const double at_floor = 10.0 * Log10(65025.0 / 1e-16);
  EXPECT_EQ(PsnrFromMse(Runtime(1e-20), 255, 1000.0), at_floor);
  EXPECT_EQ(PsnrFromMse(Runtime(0.0), 255, 1000.0), at_floor);
}

TEST(ApsnrScore, PooledOverFrames) {
  const double expected =
      10.0 * ((Log10(65025.0) + Log10(200.0)) - Log10(50.0));
  EXPECT_EQ(ApsnrScore(Opaque(50), 200, 255), expected);
}

TEST(ApsnrScore, NoErrorGivesTheCap) {
  EXPECT_EQ(ApsnrScore(Opaque(0), 200, 255), std::ceil(10.0 * Log10(65025.0 * 200.0 * 2.0)));
}

TEST(ApsnrScore, NoPixelsGivesMinusInfinity) { EXPECT_EQ(ApsnrScore(0, 0, 255), -kInf); }

TEST(ApsnrScore, CapProductWrapsAt64Bits) {
  // 16-bit, 2^32 pixels with no error: peak^2 * 2^32 * 2 wraps modulo 2^64.
  const uint64_t pixels = uint64_t{1} << 32;
  const unsigned __int128 full = static_cast<unsigned __int128>(4294836225u) * pixels * 2u;
  const uint64_t wrapped = static_cast<uint64_t>(full);
  ASSERT_NE(static_cast<unsigned __int128>(wrapped), full);
  EXPECT_EQ(ApsnrScore(Opaque(0), pixels, 65535),
            std::ceil(10.0 * Log10(static_cast<double>(wrapped))));
}

}  // namespace
}  // namespace ssimd
