// The client's last-resort transport for encoded files: decode them here, fit the distorted video
// to the reference exactly as the server would (same size and pixel format through the same
// libswscale settings, same refusals), and send luma planes. Raw .yuv (geometry from the flags)
// and .y4m files are read as they are.
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
};

// Both files, the distorted one brought to the reference's size with `scaler` when it is encoded.
absl::StatusOr<LocalPair> OpenLocalPair(const std::string& reference,
                                        const std::string& distorted,
                                        const std::optional<Geometry>& raw_geometry,
                                        const ScalerChoice& scaler);

}  // namespace ssimd

#endif  // SSIMD_CLIENT_LOCAL_VIDEO_H_
