#include "client/local_video.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "engine/media/video_decoder.h"

namespace ssimd {

namespace {

absl::Status CannotOpen(const std::string& path, int error) {
  return absl::NotFoundError(absl::StrCat("cannot open ", path, ": ", std::strerror(error)));
}

// An encoded file comes as its DecodedInput too, for fitting it to its reference.
absl::StatusOr<OpenedInput> OpenLocal(const std::string& path,
                                      const std::optional<Geometry>& raw_geometry) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return CannotOpen(path, errno);
  }
  const InputKind kind = InputKindForPath(path);
  if (kind != InputKind::kEncoded) {
    absl::StatusOr<std::unique_ptr<VideoInput>> raw = OpenRawInput(fd, path, kind, raw_geometry);
    if (!raw.ok()) return raw.status();
    return OpenedInput::Raw(*std::move(raw));
  }
  absl::StatusOr<std::unique_ptr<DecodedInput>> decoded =
      DecodedInput::Open(fd, path, DecodeLimits());
  if (!decoded.ok()) return decoded.status();
  return OpenedInput::Decoded(*std::move(decoded));
}

}  // namespace

absl::StatusOr<std::unique_ptr<VideoInput>> OpenLocalVideo(
    const std::string& path, const std::optional<Geometry>& raw_geometry) {
  absl::StatusOr<OpenedInput> opened = OpenLocal(path, raw_geometry);
  if (!opened.ok()) return opened.status();
  return std::move(opened->input);
}

absl::StatusOr<LocalPair> OpenLocalPair(const std::string& reference,
                                        const std::string& distorted,
                                        const std::optional<Geometry>& raw_geometry,
                                        const ScalerChoice& scaler, bool chroma) {
  LocalPair pair;
  absl::StatusOr<std::unique_ptr<VideoInput>> ref = OpenLocalVideo(reference, raw_geometry);
  if (!ref.ok()) return ref.status();
  pair.reference = *std::move(ref);
  absl::StatusOr<OpenedInput> dis = OpenLocal(distorted, raw_geometry);
  if (!dis.ok()) return dis.status();
  SSIMD_RETURN_IF_ERROR(FitToReference(*pair.reference, "-r", *dis, "-d", scaler));
  pair.distorted = std::move(dis->input);
  // A 4:0:0 picture has no chroma to read: psnr scores its luma alone.
  if (chroma && pair.reference->geometry().chroma != ChromaFormat::k400) {
    pair.reference->KeepChroma();
    SSIMD_RETURN_IF_ERROR(KeepChromaLike(*pair.reference, "-r", *pair.distorted, "-d"));
  }
  return pair;
}

}  // namespace ssimd
