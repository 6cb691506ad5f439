// A double's bit pattern, for tests that hold scores to libvmaf's bit for bit: == would call
// -0.0 and 0.0 equal, and NaN unequal to itself.
#ifndef SSIMD_BASE_DOUBLE_BITS_H_
#define SSIMD_BASE_DOUBLE_BITS_H_

#include <cstdint>
#include <cstring>

namespace ssimd {

inline uint64_t DoubleBits(double v) {
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof(bits));
  return bits;
}

inline bool SameBits(double a, double b) { return DoubleBits(a) == DoubleBits(b); }

}  // namespace ssimd

#endif  // SSIMD_BASE_DOUBLE_BITS_H_
