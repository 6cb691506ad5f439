// libvmaf's `psnr` feature on the CPU, bit for bit: per-frame psnr_y/_cb/_cr (and mse_* with
// enable_mse) and the pooled apsnr_* (enable_apsnr). The arithmetic is kernels/psnr_math.h and
// the host finish engine/psnr_scores.h; this file checks the planes and walks them.
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

// One frame pair's psnr_y (and mse_y with enable_mse) and, with enable_chroma on a picture that
// has chroma, psnr_cb and psnr_cr from `chroma`, added to `scores`; with enable_apsnr the sums
// a clip pools (FrameSums) are added to `sums`. INVALID_ARGUMENT if the options ask for chroma
// and `chroma` is null, or if a plane does not match `geometry`.
absl::Status AddPsnrScores(const Geometry& geometry, const PsnrOptions& options,
                           const LumaView& reference, const LumaView& distorted,
                           const FrameChroma* chroma, FrameScores& scores, FrameSums& sums);

class PsnrScorer {
 public:
  // INVALID_ARGUMENT for an invalid geometry or a negative or non-finite min_sse.
  static absl::StatusOr<PsnrScorer> Create(const Geometry& geometry, const PsnrOptions& options);

  // One frame's values keyed by libvmaf's names. Every plane scored must have PsnrPlaneSize's
  // size and the geometry's bit depth (INVALID_ARGUMENT naming the plane otherwise); chroma views
  // are not read when chroma is not scored. With enable_apsnr the frame's sums (FrameSums) join
  // the pool, and `frame_sums`, when given, receives them.
  absl::StatusOr<FrameScores> Score(const PsnrPlanes& reference, const PsnrPlanes& distorted,
                                    FrameSums* frame_sums = nullptr);

  // apsnr_* over every frame scored so far; empty unless enable_apsnr.
  FrameScores Pooled() const;

  // Planes scored per frame: 1 or 3.
  int planes() const { return planes_; }

 private:
  PsnrScorer(const Geometry& geometry, const PsnrOptions& options);

  Geometry geometry_;
  PsnrOptions options_;
  int planes_ = 1;
  uint64_t frames_ = 0;
  FrameSums totals_;  // the frames' sums added up (enable_apsnr)
};

}  // namespace ssimd

#endif  // SSIMD_ENGINE_CPU_PSNR_H_
