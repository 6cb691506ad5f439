// Luma samples as a typed array (uint8_t at 8 bit, uint16_t above) for the shared kernels, which
// index planes by element. 8-bit views are used in place. Deeper views are used in place too when
// the host is little-endian and the words are aligned; otherwise they are copied once into
// host-order words (a LumaView holds little-endian bytes at any address).
#ifndef SSIMD_ENGINE_CPU_SAMPLE_PLANE_H_
#define SSIMD_ENGINE_CPU_SAMPLE_PLANE_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/picture.h"

namespace ssimd {

// A 16-bit word that may alias the byte buffers samples arrive in.
typedef uint16_t __attribute__((may_alias)) SampleWord;

class SamplePlane {
 public:
  explicit SamplePlane(const LumaView& view);

  int width() const { return width_; }
  int height() const { return height_; }
  int bit_depth() const { return bit_depth_; }
  bool wide() const { return bit_depth_ > 8; }
  // Elements per row.
  size_t stride() const { return stride_; }
  // Valid when !wide() / wide() respectively.
  const uint8_t* bytes() const { return bytes_; }
  const SampleWord* words() const { return words_; }

 private:
  int width_;
  int height_;
  int bit_depth_;
  size_t stride_;
  const uint8_t* bytes_ = nullptr;
  const SampleWord* words_ = nullptr;
  std::vector<uint16_t> copy_;
};

}  // namespace ssimd

#endif  // SSIMD_ENGINE_CPU_SAMPLE_PLANE_H_
