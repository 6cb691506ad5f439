#include "engine/gpu/exact_sum.h"

#include <cmath>
#include <limits>

#include "kernels/float_ssim_math.h"
#include "kernels/integer_ssim_math.h"

namespace ssimd {

SumWithMagnitude AddBlockPartials(const double* partials, size_t blocks, size_t stride,
                                  size_t offset) {
  SumWithMagnitude total;
  for (size_t b = 0; b < blocks; ++b) {
    total.sum += partials[b * stride + offset];
    total.abs_sum += partials[b * stride + offset + 1];
  }
  return total;
}

double SummationOrderBound(int64_t terms, double abs_sum) {
  if (terms <= 1) return 0.0;
  const double u = 0x1p-53;
  const double nu = static_cast<double>(terms - 1) * u;
  if (nu >= 0.5) return std::numeric_limits<double>::infinity();
  const double gamma = nu / (1.0 - nu);
  // Each operation above and below rounds with a relative error of at most u; a factor of
  // 1 + 2^-20 covers them with a wide margin.
  return 2.0 * gamma * (abs_sum / (1.0 - gamma)) * (1.0 + 0x1p-20);
}

std::optional<double> CertainFloatSsimMean(const SumWithMagnitude& device, int64_t terms,
                                           int valid_width, int valid_height) {
  if (valid_width <= 0 || valid_height <= 0 || !std::isfinite(device.sum) ||
      !std::isfinite(device.abs_sum)) {
    return std::nullopt;
  }
  const double bound = SummationOrderBound(terms, device.abs_sum);
  if (!std::isfinite(bound)) return std::nullopt;
  // Rounded outward, so [low, high] holds every sum within the bound of the device's.
  const double low = std::nextafter(device.sum - bound, -std::numeric_limits<double>::infinity());
  const double high = std::nextafter(device.sum + bound, std::numeric_limits<double>::infinity());
  // The mean is monotone in the sum (a positive divisor, then two roundings), so equal ends mean
  // every sum in between gives that same value.
  const double mean_low = FloatSsimMean(low, valid_width, valid_height);
  const double mean_high = FloatSsimMean(high, valid_width, valid_height);
  if (mean_low != mean_high || std::signbit(mean_low) != std::signbit(mean_high)) {
    return std::nullopt;
  }
  return FloatSsimMean(device.sum, valid_width, valid_height);
}

double SumInOrder(const double* values, size_t count) {
  double sum = 0.0;
  for (size_t i = 0; i < count; ++i) sum += values[i];
  return sum;
}

int64_t IntegerSsimWeightSum(int width, int height) {
  int64_t columns = 0;
  for (int x = 0; x < width; ++x) columns += ClippedWindowWeight(x, width);
  int64_t rows = 0;
  for (int y = 0; y < height; ++y) rows += ClippedWindowWeight(y, height);
  return columns * rows;
}

double IntegerSsimBlockSumBound(int width, int height) {
  const int64_t threads = static_cast<int64_t>(IntegerSsimPartialBlocks(width, height)) *
                          kIntegerSsimBlockX * kIntegerSsimBlockY;
  const double weights = static_cast<double>(IntegerSsimWeightSum(width, height));
  return SummationOrderBound(threads, weights) / weights;
}

}  // namespace ssimd
