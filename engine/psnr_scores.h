// psnr's host finish, the same for every backend: a plane's exact sum of squared errors (an
// integer, however a backend summed it) into libvmaf's psnr_* and mse_* values, with the plane
// sizes libvmaf gives a picture. The arithmetic is kernels/psnr_math.h.
#ifndef SSIMD_ENGINE_PSNR_SCORES_H_
#define SSIMD_ENGINE_PSNR_SCORES_H_

#include <cstdint>

#include "engine/features.h"
#include "engine/picture.h"

namespace ssimd {

// "y", "cb", "cr": the suffix of plane 0, 1, 2 in libvmaf's metric names.
const char* PsnrPlaneSuffix(int plane);

// The size libvmaf gives plane `plane` (0 luma, 1 and 2 chroma) of a picture: subsampled chroma
// sides are halved rounding down (a 1-pixel-wide 4:2:0 picture has empty chroma), and 4:0:0 has
// none. Files store such chroma rounded up (FrameBytes); libvmaf reads its top-left part.
PlaneSize PsnrPlaneSize(const Geometry& geometry, int plane);

// Adds psnr_<plane> (and mse_<plane> with enable_mse) of a plane whose squared errors sum to
// `sse`. `geometry` and `options` must be valid (ValidateGeometry, ValidateFeatureSet).
void AddPsnrPlaneScores(const Geometry& geometry, const PsnrOptions& options, int plane,
                        uint64_t sse, FrameScores& scores);

}  // namespace ssimd

#endif  // SSIMD_ENGINE_PSNR_SCORES_H_
