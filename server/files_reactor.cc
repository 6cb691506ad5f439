#include "server/files_reactor.h"

#include <unistd.h>

#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "server/request_parsing.h"

namespace ssimd {
namespace {

// Owns a descriptor until a FrameReader takes it over.
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int release() {
    const int fd = fd_;
    fd_ = -1;
    return fd;
  }

 private:
  int fd_;
};

absl::StatusOr<std::unique_ptr<FrameReader>> ReaderFor(Fd& fd, const std::string& path,
                                                       absl::string_view field,
                                                       const std::optional<Geometry>& geometry) {
  auto reader = FrameReader::FromFd(fd.release(), path, FileFormatForPath(path), geometry);
  if (!reader.ok()) return WithField(reader.status(), field);
  return reader;
}

}  // namespace

FilesReactor::FilesReactor(ServiceContext* ctx, grpc::CallbackServerContext* call,
                           const v1::ScoreFilesRequest& request)
    : ctx_(ctx), request_(request), pipeline_(ctx, this, "ScoreFiles", call->peer()) {
  pipeline_.Start();
}

void FilesReactor::HostFetch() {
  pipeline_.HoldTask();
  ctx_->pool->Submit([this] {
    if (pipeline_.stopping()) {
      pipeline_.FetchedEnd();
    } else if (reference_ == nullptr) {
      Open();
    } else {
      ReadNext();
    }
    pipeline_.ReleaseTask();
  });
}

void FilesReactor::Open() {
  if (ctx_->files == nullptr) {
    pipeline_.FetchFailed(absl::FailedPreconditionError(
        "ScoreFiles is disabled on this server: start it with --files_root=DIR, or stream the "
        "frames with ScoreClip"));
    return;
  }
  // Paths first: a request for a file outside the root is refused whatever else it says.
  auto reference_fd = ctx_->files->OpenForRead(request_.reference_path(), "reference_path");
  if (!reference_fd.ok()) {
    pipeline_.FetchFailed(reference_fd.status());
    return;
  }
  Fd reference_owner(*reference_fd);
  auto distorted_fd = ctx_->files->OpenForRead(request_.distorted_path(), "distorted_path");
  if (!distorted_fd.ok()) {
    pipeline_.FetchFailed(distorted_fd.status());
    return;
  }
  Fd distorted_owner(*distorted_fd);
  const v1::ClipConfig& config = request_.config();
  std::optional<Geometry> geometry;
  if (config.has_geometry()) {
    auto parsed = ParseGeometry(config.geometry(), "config.geometry");
    if (!parsed.ok()) {
      pipeline_.FetchFailed(parsed.status());
      return;
    }
    // A raw file's frame size depends on its chroma layout, which must therefore be explicit.
    if (config.geometry().pixel_format() == v1::PIXEL_FORMAT_UNSPECIFIED &&
        (FileFormatForPath(request_.reference_path()) == FileFormat::kRawYuv ||
         FileFormatForPath(request_.distorted_path()) == FileFormat::kRawYuv)) {
      pipeline_.FetchFailed(absl::InvalidArgumentError(
          "config.geometry.pixel_format: required for raw .yuv files (it sets the frame size); "
          "expected PIXEL_FORMAT_420, _422, _444 or _400"));
      return;
    }
    geometry = *parsed;
  }
  auto settings = ParseClipOptions(config, ctx_->options, "config");
  if (!settings.ok()) {
    pipeline_.FetchFailed(settings.status());
    return;
  }
  for (const auto* path : {&request_.reference_path(), &request_.distorted_path()}) {
    if (!geometry.has_value() && FileFormatForPath(*path) == FileFormat::kRawYuv) {
      pipeline_.FetchFailed(absl::InvalidArgumentError(absl::StrCat(
          "config.geometry: missing; raw file ", *path,
          " needs width, height, bit_depth and pixel_format (only .y4m files carry their own)")));
      return;
    }
  }
  auto reference = ReaderFor(reference_owner, request_.reference_path(), "reference_path", geometry);
  if (!reference.ok()) {
    pipeline_.FetchFailed(reference.status());
    return;
  }
  auto distorted = ReaderFor(distorted_owner, request_.distorted_path(), "distorted_path", geometry);
  if (!distorted.ok()) {
    pipeline_.FetchFailed(distorted.status());
    return;
  }
  const Geometry& ref_geometry = (*reference)->geometry();
  const Geometry& dis_geometry = (*distorted)->geometry();
  if (ref_geometry.width != dis_geometry.width || ref_geometry.height != dis_geometry.height ||
      ref_geometry.bit_depth != dis_geometry.bit_depth) {
    pipeline_.FetchFailed(absl::InvalidArgumentError(absl::StrFormat(
        "distorted_path: %dx%d %d-bit, but reference_path is %dx%d %d-bit; both files must have "
        "the same luma size and bit depth",
        dis_geometry.width, dis_geometry.height, dis_geometry.bit_depth, ref_geometry.width,
        ref_geometry.height, ref_geometry.bit_depth)));
    return;
  }
  settings->geometry = ref_geometry;
  absl::Status status = WithField(
      ctx_->dispatcher->CheckRequest(settings->geometry, settings->features, settings->backend),
      "config");
  if (status.ok()) status = (*reference)->Skip(request_.start_frame());
  if (status.ok()) status = (*distorted)->Skip(request_.start_frame());
  if (!status.ok()) {
    pipeline_.FetchFailed(status);
    return;
  }
  reference_ = *std::move(reference);
  distorted_ = *std::move(distorted);
  limited_ = request_.frame_count() > 0;
  frames_left_ = request_.frame_count();
  pipeline_.FetchedConfig(*std::move(settings));
}

void FilesReactor::ReadNext() {
  if (limited_ && frames_left_ == 0) {
    pipeline_.FetchedEnd();
    return;
  }
  std::string reference;
  std::string distorted;
  auto got_reference = reference_->ReadLuma(&reference);
  if (!got_reference.ok()) {
    pipeline_.FetchFailed(WithField(got_reference.status(), "reference_path"));
    return;
  }
  auto got_distorted = distorted_->ReadLuma(&distorted);
  if (!got_distorted.ok()) {
    pipeline_.FetchFailed(WithField(got_distorted.status(), "distorted_path"));
    return;
  }
  // libvmaf's CLI also stops at the shorter file.
  if (!*got_reference || !*got_distorted) {
    pipeline_.FetchedEnd();
    return;
  }
  if (limited_) --frames_left_;
  pipeline_.FetchedFrame(pipeline_.frames_fetched(),
                         PlanesFromStrings(std::move(reference), std::move(distorted)));
}

}  // namespace ssimd
