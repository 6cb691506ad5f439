// Pictures as ssimd sees them: a geometry (size, bit depth, chroma layout) and read-only views of
// their planes. The chroma layout sets a raw frame's size and, where psnr scores chroma, the
// chroma planes' sizes.
#ifndef SSIMD_ENGINE_PICTURE_H_
#define SSIMD_ENGINE_PICTURE_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace ssimd {

enum class ChromaFormat { k400, k420, k422, k444 };

// Largest side accepted. libvmaf's automatic scale reaches its device limit (128) at a 32640-pixel
// short side; 32768 leaves that reachable while rejecting absurd sizes before any allocation.
inline constexpr int kMaxDimension = 32768;
// Largest picture accepted, in pixels (16K x 16K). Bounds memory per frame.
inline constexpr int64_t kMaxPixels = int64_t{16384} * 16384;
// Largest picture the server decodes or reads from a file unless told otherwise
// (--max_picture_pixels): 8192x4352, every 8K format with room for its coded height. A decoder
// holds up to 20 such pictures, so the limit is what keeps one small file from costing gigabytes.
inline constexpr int64_t kDefaultMaxPicturePixels = int64_t{8192} * 4352;

struct Geometry {
  int width = 0;
  int height = 0;
  int bit_depth = 8;  // 8, 10, 12 or 16
  ChromaFormat chroma = ChromaFormat::k420;
};

// OK, or INVALID_ARGUMENT naming the field and the accepted values.
absl::Status ValidateGeometry(const Geometry& geometry);

// Bytes per sample: 1 at 8 bit, 2 (little-endian) above.
int BytesPerSample(int bit_depth);
// Largest sample value, 2^bit_depth - 1.
uint32_t PeakValue(int bit_depth);
// Bytes of one tightly packed luma plane.
size_t LumaBytes(const Geometry& geometry);
// A plane's sides in samples.
struct PlaneSize {
  int width = 0;
  int height = 0;
};

// Each chroma plane of a raw .yuv file: sides ceil(w/2) / ceil(h/2) where subsampled, as ffmpeg
// writes odd sizes; 0x0 for 4:0:0.
PlaneSize StoredChromaSize(const Geometry& geometry);
// Bytes of one whole planar frame in a raw .yuv file: luma plus two StoredChromaSize planes.
size_t FrameBytes(const Geometry& geometry);

std::string ChromaFormatName(ChromaFormat format);  // "420", "422", "444", "400"

// Sample `x` of a row of packed samples: one byte at 8 bits, little-endian 16 bits above.
inline uint32_t LoadSample(const uint8_t* row, int x, int bit_depth) {
  if (bit_depth <= 8) return row[x];
  return static_cast<uint32_t>(row[2 * x]) | (static_cast<uint32_t>(row[2 * x + 1]) << 8);
}
inline void StoreSample(uint8_t* row, int x, int bit_depth, uint32_t value) {
  if (bit_depth <= 8) {
    row[x] = static_cast<uint8_t>(value);
  } else {
    row[2 * x] = static_cast<uint8_t>(value & 0xff);
    row[2 * x + 1] = static_cast<uint8_t>(value >> 8);
  }
}

// A read-only luma plane. Samples are uint8 at 8 bit and little-endian uint16 above.
struct LumaView {
  const uint8_t* data = nullptr;
  size_t stride_bytes = 0;
  int width = 0;
  int height = 0;
  int bit_depth = 8;

  uint32_t Sample(int x, int y) const {
    return LoadSample(data + static_cast<size_t>(y) * stride_bytes, x, bit_depth);
  }
};

class DevicePlane;  // engine/device_plane.h

// The chroma planes of a frame pair, Cb then Cr of each picture, at the sizes libvmaf reads
// (PsnrPlaneSize: subsampled sides halved rounding down), in host memory; or, for a side whose
// chroma a video engine left in a GPU's memory, that plane (Cb and Cr interleaved at their stored
// size), with views that give the sizes but no data (ChromaOnHost brings it to the host).
struct FrameChroma {
  std::array<LumaView, 2> reference;
  std::array<LumaView, 2> distorted;
  const DevicePlane* reference_on_device = nullptr;
  const DevicePlane* distorted_on_device = nullptr;
};

// OK if `bytes` is exactly LumaBytes(geometry) for a valid geometry, else INVALID_ARGUMENT saying
// how many bytes were expected; `what` names the buffer, e.g. "reference luma".
absl::Status CheckLumaBytes(const Geometry& geometry, size_t bytes, const std::string& what);

// A view of a tightly packed luma plane; INVALID_ARGUMENT if `bytes` does not hold exactly
// LumaBytes(geometry) bytes (the message says how many were expected). `what` names the buffer in
// messages, e.g. "reference luma".
absl::StatusOr<LumaView> MakeLumaView(const Geometry& geometry, absl::Span<const uint8_t> bytes,
                                      const std::string& what);

// What every backend checks of a frame it is handed: data present, the stream's size and bit
// depth, a stride of at least one row. INVALID_ARGUMENT otherwise; `what` names the plane
// ("reference", "distorted"). Samples are not read (see ValidateSampleRange).
absl::Status CheckLumaView(const Geometry& geometry, const LumaView& view, absl::string_view what);

// INVALID_ARGUMENT naming the first sample above the bit depth's peak (only possible above 8 bit).
absl::Status ValidateSampleRange(const LumaView& view, const std::string& what);

}  // namespace ssimd

#endif  // SSIMD_ENGINE_PICTURE_H_
