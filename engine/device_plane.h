// A plane that lies in a GPU's memory: a picture a video engine decoded there and that is scored
// without crossing the bus (docs/adr/0083). The GPU backend reads it where it lies (rows
// `pitch_bytes` apart, samples possibly `sample_shift` bits high, as NVDEC's P010 and P016 keep
// them, Cb and Cr possibly interleaved in one plane, as NV12's second plane holds them); every
// other reader asks for a host copy in ssimd's own layout.
#ifndef SSIMD_ENGINE_DEVICE_PLANE_H_
#define SSIMD_ENGINE_DEVICE_PLANE_H_

#include <cstddef>
#include <cstdint>

#include "absl/status/status.h"

namespace ssimd {

struct DevicePlaneLayout {
  int device = 0;            // the GPU's index, as the GPU backend counts them
  const void* data = nullptr;  // device address of the first row
  size_t pitch_bytes = 0;
  int width = 0;             // samples of one plane in a row
  int height = 0;
  int bit_depth = 8;         // of the samples once shifted down
  int sample_shift = 0;      // the stored 16-bit samples hold the value this many bits higher
  // 1 for a plane of its own; 2 for the chroma of a semi-planar picture, whose rows alternate a
  // Cb and a Cr sample (CbCrCbCr...).
  int interleaved_planes = 1;
};

class DevicePlane {
 public:
  virtual ~DevicePlane() = default;

  // Where the plane lies and how its samples are stored. The memory stays valid, and its
  // contents complete, for as long as the object lives.
  virtual const DevicePlaneLayout& layout() const = 0;

  // The plane as ssimd's tightly packed planes (each width x height samples at bit_depth, in the
  // low bits; interleaved Cb and Cr as the Cb plane, then the Cr plane) into `out`; for readers
  // that cannot read device memory.
  virtual absl::Status CopyToHost(uint8_t* out) const = 0;

  // Bytes of the tightly packed copy.
  size_t packed_bytes() const {
    const DevicePlaneLayout& l = layout();
    return static_cast<size_t>(l.interleaved_planes) * l.width * l.height *
           (l.bit_depth > 8 ? 2 : 1);
  }
};

}  // namespace ssimd

#endif  // SSIMD_ENGINE_DEVICE_PLANE_H_
