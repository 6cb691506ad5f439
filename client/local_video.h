// The client's last-resort transport for encoded files: decode them here, fit the distorted video
// to the reference exactly as the server would (same size and pixel format through the same
// libswscale settings, same refusals), and send the planes: luma, and chroma too where a feature
// reads it (psnr's enable_chroma). Raw .yuv (geometry from the flags) and .y4m files are read as
// they are.
#ifndef SSIMD_CLIENT_LOCAL_VIDEO_H_
#define SSIMD_CLIENT_LOCAL_VIDEO_H_

#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "engine/media/picture_scaler.h"
#include "engine/media/video_input.h"
#include "engine/picture.h"

namespace ssimd {

// Opens one local file. `raw_geometry` is required for raw .yuv files, checked against a .y4m
// header and not used for encoded files (they state their own).
absl::StatusOr<std::unique_ptr<VideoInput>> OpenLocalVideo(
    const std::string& path, const std::optional<Geometry>& raw_geometry);

struct LocalPair {
  std::unique_ptr<VideoInput> reference;
  std::unique_ptr<VideoInput> distorted;

  // Whether both inputs' frames carry their chroma planes after the luma (VideoInput::ReadPlanes):
  // OpenLocalPair's `chroma` on pictures that have some.
  bool with_chroma() const { return reference->keeps_chroma(); }
};

// Both files, the distorted one brought to the reference's size with `scaler` when it is encoded.
// With `chroma` (the features read chroma where a picture has it, FeaturesReadChroma), a reference
// that has chroma is read with it, and so is the distorted file, an encoded one converted to the
// reference's chroma layout as its luma is scaled; raw .yuv and .y4m files of another layout are
// refused (INVALID_ARGUMENT naming -d and psnr=enable_chroma=false).
absl::StatusOr<LocalPair> OpenLocalPair(const std::string& reference,
                                        const std::string& distorted,
                                        const std::optional<Geometry>& raw_geometry,
                                        const ScalerChoice& scaler, bool chroma = false);

}  // namespace ssimd

#endif  // SSIMD_CLIENT_LOCAL_VIDEO_H_
