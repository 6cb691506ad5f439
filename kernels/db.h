// libvmaf's dB conversions (docs/numerics.md §8). log10 is not correctly rounded on GPUs, so every
// backend applies these on the host, to the frame score, after the device work.
#ifndef SSIMD_KERNELS_DB_H_
#define SSIMD_KERNELS_DB_H_

#include <cmath>
#include <cstdint>
#include <limits>

namespace ssimd {

// float_ssim's clip_db cap: ceil(10*log10(peak^2 / (0.5 / (W*H)))) with the full-resolution size;
// +inf when clip_db is off.
inline double FloatSsimMaxDb(bool clip_db, int bit_depth, int width, int height) {
  if (!clip_db) return std::numeric_limits<double>::infinity();
  const uint32_t peak = (1u << bit_depth) - 1u;
  const uint32_t peak_squared = peak * peak;  // 65535^2 still fits in 32 unsigned bits
  const int pixels = width * height;
  return std::ceil(10.0 * std::log10(static_cast<double>(peak_squared) /
                                     (0.5 / static_cast<double>(pixels))));
}

// float_ssim in dB as libvmaf writes it: MIN(-10*log10(1 - score), max_db) with C's comparison,
// so NaN and scores above 1 give max_db and a score of +-0 gives -0.
inline double FloatSsimToDb(double score, double max_db) {
  const double db = -10.0 * std::log10(1.0 - score);
  return db < max_db ? db : max_db;
}

// Integer ssim in dB (the later extractor's shared emitter): +inf when score >= 1.
inline double IntegerSsimToDb(double score) {
  if (score >= 1.0) return std::numeric_limits<double>::infinity();
  return -10.0 * std::log10(1.0 - score);
}

}  // namespace ssimd

#endif  // SSIMD_KERNELS_DB_H_
