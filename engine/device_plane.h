// A luma plane that lies in a GPU's memory: a picture a video engine decoded there and that is
// scored without crossing the bus (docs/adr/0083). The GPU backend reads it where it lies (rows
// `pitch_bytes` apart, samples possibly `sample_shift` bits high, as NVDEC's P010 and P016 keep
// them); every other reader asks for a host copy in ssimd's own layout.
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
  int width = 0;
  int height = 0;
  int bit_depth = 8;         // of the samples once shifted down
  int sample_shift = 0;      // the stored 16-bit samples hold the value this many bits higher
};

class DevicePlane {
 public:
  virtual ~DevicePlane() = default;

  // Where the plane lies and how its samples are stored. The memory stays valid, and its
  // contents complete, for as long as the object lives.
  virtual const DevicePlaneLayout& layout() const = 0;

  // The plane as ssimd's tightly packed luma (LumaBytes of width x height at bit_depth, samples
  // in the low bits) into `out`; for readers that cannot read device memory.
  virtual absl::Status CopyToHost(uint8_t* out) const = 0;

  // Bytes of the tightly packed copy.
  size_t packed_bytes() const {
    const DevicePlaneLayout& l = layout();
    return static_cast<size_t>(l.width) * l.height * (l.bit_depth > 8 ? 2 : 1);
  }
};

}  // namespace ssimd

#endif  // SSIMD_ENGINE_DEVICE_PLANE_H_
