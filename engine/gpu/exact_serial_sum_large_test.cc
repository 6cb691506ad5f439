// SerialSumByBlocks at 2^27 terms (1 GiB of doubles; the largest frame ssimd accepts has fewer
// pixels), against the plain serial loop, bit for bit. Tagged manual: seconds of work and a GiB of
// memory, too much for the default suite on a 2-core CI machine, which covers up to 2^22 terms.
// Run: bazel test //engine/gpu:exact_serial_sum_large_test
#include <cstdint>
#include <random>
#include <vector>

#include "base/double_bits.h"
#include "engine/gpu/exact_sum.h"
#include "gtest/gtest.h"
#include "kernels/exact_sum_math.h"

namespace ssimd {
namespace {

TEST(SerialSumByBlocksLargeTest, TwoToThe27Terms) {
  const size_t n = size_t{1} << 27;
  std::vector<double> terms(n);
  std::mt19937_64 rng(27);
  std::uniform_real_distribution<double> ssim(-0.2, 1.0);
  for (size_t i = 0; i < n; ++i) {
    // W * SSIM-like terms; every 1000th is 2^-12, an exact tie while the sum is in [2^40, 2^41).
    terms[i] = (i % 1000 == 999) ? 0x1p-12 : static_cast<double>(256 + rng() % 65281) * ssim(rng);
  }
  double serial = 0.0;
  for (double t : terms) serial += t;
  const ExactSumOutcome outcome = SerialSumByBlocks(terms.data(), static_cast<int64_t>(n));
  EXPECT_EQ(outcome.fallback, kExactSumOnDevice) << ExactSumFallbackName(outcome.fallback);
  EXPECT_EQ(DoubleBits(outcome.sum), DoubleBits(serial)) << outcome.sum << " vs " << serial;
}

}  // namespace
}  // namespace ssimd
