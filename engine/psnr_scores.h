// psnr's host finish, the same for every backend: a plane's exact sum of squared errors (an
// integer, however a backend summed it) into libvmaf's psnr_* and mse_* values, with the plane
// sizes libvmaf gives a picture. The arithmetic is kernels/psnr_math.h.
#ifndef SSIMD_ENGINE_PSNR_SCORES_H_
#define SSIMD_ENGINE_PSNR_SCORES_H_

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "engine/features.h"
#include "engine/luma_scale_plan.h"
#include "engine/picture.h"

namespace ssimd {

// "y", "cb", "cr": the suffix of plane 0, 1, 2 in libvmaf's metric names.
const char* PsnrPlaneSuffix(int plane);

// The size libvmaf gives plane `plane` (0 luma, 1 and 2 chroma) of a picture: subsampled chroma
// sides are halved rounding down (a 1-pixel-wide 4:2:0 picture has empty chroma), and 4:0:0 has
// none. Files store such chroma rounded up (FrameBytes); libvmaf reads its top-left part.
PlaneSize PsnrPlaneSize(const Geometry& geometry, int plane);

// Views of a picture's two chroma planes (Cb, Cr) at PsnrPlaneSize's sizes over `stored`: both
// planes tightly packed at StoredChromaSize (sides rounded up, as raw files and FramePair hold
// them), Cb first. INVALID_ARGUMENT naming `what` when `stored` has another size.
absl::StatusOr<std::array<LumaView, 2>> ChromaViews(const Geometry& geometry,
                                                    absl::Span<const uint8_t> stored,
                                                    absl::string_view what);

// The sides of a pair whose chroma lies in a GPU's memory (interleaved: FrameChroma).
struct ChromaOnDevice {
  const DevicePlane* reference = nullptr;
  const DevicePlane* distorted = nullptr;
};

// The chroma views of a pair of pictures where `features` read chroma (FeaturesReadChroma of the
// geometry's layout), else none: ChromaViews of each picture's stored planes. With
// `distorted_upscale` (which must carry a chroma plan), the distorted planes lie at the plan's
// source size and their views are the whole planes, as the plan reads them
// (PiecewiseFramePair::chroma). INVALID_ARGUMENT naming `reference_what` or `distorted_what` when
// its planes are missing or of another size. A side in `on_device` takes its plane there instead
// of host bytes (then empty); INTERNAL when that plane does not have the side's stored size.
absl::StatusOr<std::optional<FrameChroma>> PairChromaToScore(
    const Geometry& geometry, const FeatureSet& features, absl::Span<const uint8_t> reference,
    absl::Span<const uint8_t> distorted, absl::string_view reference_what,
    absl::string_view distorted_what, const LumaScalePlan* distorted_upscale = nullptr,
    const ChromaOnDevice& on_device = {});

// `chroma` with every side that lies on a device copied into `scratch` (kept by the caller while
// the result is read): host views only, for backends that read host memory.
absl::StatusOr<FrameChroma> ChromaOnHost(const FrameChroma& chroma, std::vector<uint8_t>& scratch);

// The exact sum of squared errors of two views of one size and bit depth (on the host).
uint64_t ViewSquaredError(const LumaView& reference, const LumaView& distorted);

// Adds psnr_cb and psnr_cr (and mse_cb, mse_cr with enable_mse) of `chroma`, whose views must
// have PsnrPlaneSize's sizes and the geometry's bit depth (INVALID_ARGUMENT naming the plane
// otherwise), and with enable_apsnr their sums to `sums`.
absl::Status AddChromaPsnrScores(const Geometry& geometry, const PsnrOptions& options,
                                 const FrameChroma& chroma, FrameScores& scores, FrameSums& sums);

// Adds psnr_<plane> (and mse_<plane> with enable_mse) of a plane whose squared errors sum to
// `sse`, and with enable_apsnr the plane's sums (FrameSums) to `sums`; the luma's call also adds
// every plane's zero sums and the peak, so that a frame whose chroma is not scored pools as
// libvmaf's does. `geometry` and `options` must be valid (ValidateGeometry, ValidateFeatureSet).
void AddPsnrPlaneScores(const Geometry& geometry, const PsnrOptions& options, int plane,
                        uint64_t sse, FrameScores& scores, FrameSums& sums);

// libvmaf's aggregate apsnr_y, apsnr_cb and apsnr_cr from a clip's `totals` over `frames` frames
// (the FrameSums of its frames added up): each plane's summed squared errors against its summed
// pixels. Empty when the totals hold no psnr sums (enable_apsnr was off) or `frames` is 0. A
// plane not scored gives -inf, as libvmaf's does.
FrameScores ApsnrScores(const FrameSums& totals, uint64_t frames);

}  // namespace ssimd

#endif  // SSIMD_ENGINE_PSNR_SCORES_H_
