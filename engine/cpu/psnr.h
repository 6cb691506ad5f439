// libvmaf's `psnr` feature on the CPU, bit for bit: per-frame psnr_y/_cb/_cr (and mse_* with
// enable_mse) and the pooled apsnr_* (enable_apsnr). The arithmetic is kernels/psnr_math.h; this
// file checks the planes, walks them and keeps the running sums for apsnr.
#ifndef SSIMD_ENGINE_CPU_PSNR_H_
#define SSIMD_ENGINE_CPU_PSNR_H_

#include <array>
#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "engine/features.h"
#include "engine/picture.h"
#include "engine/psnr_scores.h"

namespace ssimd {

// One picture's planes: luma, then the two chroma planes. A plane is described by a LumaView (the
// name is historical: any plane of packed samples, 8-bit or 16-bit little-endian).
using PsnrPlanes = std::array<LumaView, 3>;

// Views of one raw planar frame of FrameBytes(geometry) bytes (chroma sides rounded up, as ffmpeg
// writes them) at the sizes PsnrPlaneSize gives. INVALID_ARGUMENT if the size is wrong.
absl::StatusOr<PsnrPlanes> PsnrPlanesOfFrame(const Geometry& geometry,
                                             absl::Span<const uint8_t> frame);

// Summed squared errors and pixels per plane over the frames scored, and the pooled apsnr.
class ApsnrAccumulator {
 public:
  void Add(int plane, uint64_t sse, uint32_t pixels);
  // apsnr_y, apsnr_cb, apsnr_cr. libvmaf pools all three planes even when chroma is not scored;
  // a plane without pixels then gives -inf, and so does this.
  FrameScores Scores(uint32_t peak) const;

 private:
  std::array<uint64_t, 3> sse_{};
  std::array<uint64_t, 3> pixels_{};
};

// One frame pair's psnr_y (and mse_y with enable_mse) and, with enable_chroma on a picture that
// has chroma, psnr_cb and psnr_cr from `chroma`, added to `scores`. INVALID_ARGUMENT if the
// options ask for chroma and `chroma` is null, for pooling (enable_apsnr: one pair has no frames
// to pool), or if a plane does not match `geometry`.
absl::Status AddPsnrScores(const Geometry& geometry, const PsnrOptions& options,
                           const LumaView& reference, const LumaView& distorted,
                           const FrameChroma* chroma, FrameScores& scores);

class PsnrScorer {
 public:
  // INVALID_ARGUMENT for an invalid geometry or a negative or non-finite min_sse.
  static absl::StatusOr<PsnrScorer> Create(const Geometry& geometry, const PsnrOptions& options);

  // One frame's values keyed by libvmaf's names. Every plane scored must have PsnrPlaneSize's
  // size and the geometry's bit depth (INVALID_ARGUMENT naming the plane otherwise); chroma views
  // are not read when chroma is not scored. With enable_apsnr the frame is added to the pool.
  absl::StatusOr<FrameScores> Score(const PsnrPlanes& reference, const PsnrPlanes& distorted);

  // apsnr_* over every frame scored so far; empty unless enable_apsnr.
  FrameScores Pooled() const;

  // Planes scored per frame: 1 or 3.
  int planes() const { return planes_; }

 private:
  PsnrScorer(const Geometry& geometry, const PsnrOptions& options);

  Geometry geometry_;
  PsnrOptions options_;
  int planes_ = 1;
  uint32_t peak_ = 255;
  ApsnrAccumulator pool_;
};

}  // namespace ssimd

#endif  // SSIMD_ENGINE_CPU_PSNR_H_
