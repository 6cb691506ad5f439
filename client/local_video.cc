#include "client/local_video.h"

#include <fcntl.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"

namespace ssimd {

absl::StatusOr<std::unique_ptr<VideoInput>> OpenLocalVideo(
    const std::string& path, const std::optional<Geometry>& raw_geometry) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const int error = errno;
    return absl::NotFoundError(absl::StrCat("cannot open ", path, ": ", std::strerror(error)));
  }
  const InputKind kind = InputKindForPath(path);
  if (kind != InputKind::kEncoded) return OpenRawInput(fd, path, kind, raw_geometry);
  absl::StatusOr<std::unique_ptr<DecodedInput>> decoded =
      DecodedInput::Open(fd, path, DecodeLimits());
  if (!decoded.ok()) return decoded.status();
  return std::unique_ptr<VideoInput>(*std::move(decoded));
}

absl::StatusOr<LocalPair> OpenLocalPair(const std::string& reference,
                                        const std::string& distorted,
                                        const std::optional<Geometry>& raw_geometry,
                                        const ScalerChoice& scaler) {
  absl::StatusOr<std::unique_ptr<VideoInput>> ref = OpenLocalVideo(reference, raw_geometry);
  if (!ref.ok()) return ref.status();
  absl::StatusOr<std::unique_ptr<VideoInput>> dis = OpenLocalVideo(distorted, raw_geometry);
  if (!dis.ok()) return dis.status();
  LocalPair pair{*std::move(ref), *std::move(dis)};
  SSIMD_RETURN_IF_ERROR(
      FitToReference(*pair.reference, "-r", *pair.distorted, "-d", scaler));
  return pair;
}

}  // namespace ssimd
