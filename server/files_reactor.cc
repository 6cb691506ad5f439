#include "server/files_reactor.h"

#include <unistd.h>

#include <string>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "engine/features.h"
#include "engine/media/read_ahead_input.h"
#include "server/file_inputs.h"
#include "server/grpc_convert.h"
#include "server/input_resolver.h"

namespace ssimd {
namespace {

// Owns a descriptor until a reader takes it over.
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

bool IsRaw(const std::string& path) { return InputKindForPath(path) == InputKind::kRawYuv; }

}  // namespace

FilesReactor::FilesReactor(ServiceContext* ctx, grpc::CallbackServerContext* call,
                           const v1::ScoreFilesRequest& request)
    : ctx_(ctx),
      call_(call),
      request_(request),
      reference_name_(ReaderNameOfInput(request.reference_path())),
      distorted_name_(ReaderNameOfInput(request.distorted_path())),
      pipeline_(ctx, this, "ScoreFiles", call->peer(), absl::FromChrono(call->deadline())) {
  pipeline_.Start();
}

void FilesReactor::HostFetch() {
  pipeline_.HoldTask();
  if (pairer_ == nullptr && !pipeline_.stopping()) {
    // Opening may wait for decoded-picture memory that other calls hold (--decoded_memory_wait):
    // on a thread of its own, since those calls need the workers to finish and give it back.
    std::thread([this] {
      Open();
      pipeline_.ReleaseTask();
    }).detach();
    return;
  }
  ctx_->pool->Submit([this] {
    if (pipeline_.stopping()) {
      pipeline_.FetchedEnd();
    } else if (pairer_ == nullptr) {
      Open();
    } else {
      ReadNext();
    }
    pipeline_.ReleaseTask();
  });
}

void FilesReactor::Open() {
  absl::StatusOr<ClipSettings> settings = OpenInputs();
  if (!settings.ok()) {
    ctx_->metrics->RecordDecodeError(settings.status());
    pipeline_.FetchFailed(settings.status());
    return;
  }
  pairer_ = std::make_unique<FramePairer>(
      reference_.get(), distorted_.get(),
      PairingOptions{request_.frame_count(), request_.require_equal_length()});
  features_ = settings->features;
  pipeline_.FetchedConfig(*std::move(settings));
}

absl::StatusOr<ClipSettings> FilesReactor::OpenInputs() {
  if (!ctx_->inputs->any_enabled()) {
    return absl::FailedPreconditionError(
        "ScoreFiles is disabled on this server: start it with --files_root=DIR, --upload_dir=DIR "
        "or --allow_url_prefix=URL, or stream the frames with ScoreClip");
  }
  // Inputs first: a request for a file outside the root is refused whatever else it says. Both
  // are checked before either is opened, so that a refused distorted input costs no fetch of the
  // reference.
  SSIMD_RETURN_IF_ERROR(ctx_->inputs->Check(request_.reference_path(), "reference_path"));
  SSIMD_RETURN_IF_ERROR(ctx_->inputs->Check(request_.distorted_path(), "distorted_path"));
  // The fetches stop when the stream stops (cancelled, failed or aborted), and take
  // --url_call_timeout at most together.
  const FetchControl control =
      ctx_->inputs->ControlForCall([this] { return pipeline_.stopping(); });
  absl::StatusOr<int> reference_fd =
      ctx_->inputs->OpenForRead(request_.reference_path(), "reference_path", control);
  if (!reference_fd.ok()) return reference_fd.status();
  Fd reference_owner(*reference_fd);
  absl::StatusOr<int> distorted_fd =
      ctx_->inputs->OpenForRead(request_.distorted_path(), "distorted_path", control);
  if (!distorted_fd.ok()) return distorted_fd.status();
  Fd distorted_owner(*distorted_fd);

  absl::StatusOr<std::optional<Geometry>> geometry = RequestedGeometry();
  if (!geometry.ok()) return geometry.status();
  absl::StatusOr<ClipSettings> settings =
      ParseClipOptions(request_.config(), ctx_->options, "config");
  if (!settings.ok()) return settings.status();
  absl::StatusOr<ScalerChoice> scaler = ParseUpscale(request_.upscale(), "upscale");
  if (!scaler.ok()) return scaler.status();
  SSIMD_RETURN_IF_ERROR(CheckRawFilesHaveGeometry(*geometry));

  // Each input reserves its pictures' memory before its first frame is decoded: the reference
  // at its own size, the distorted one brought to the reference's.
  InputOpening opening =
      ctx_->OpeningForCall([this] { return pipeline_.stopping(); }, &reserved_by_call_);
  opening.luma_planes = [in_flight = ctx_->options.max_frames_in_flight](const Geometry& g) {
    return static_cast<int>(ReadAheadDepth(g)) + in_flight + 1;  // ReadAhead()'s buffers
  };
  // Whether a picture's chroma is read, where it has some (the layout is known once opened).
  opening.with_chroma = FeaturesReadChroma(settings->features, ChromaFormat::k444);
  absl::StatusOr<OpenedInput> reference = OpenFileInput(
      reference_owner.release(), reference_name_, "reference_path", *geometry, opening);
  if (!reference.ok()) return reference.status();
  opening.scaled_to = reference->input->geometry();
  absl::StatusOr<OpenedInput> distorted = OpenFileInput(
      distorted_owner.release(), distorted_name_, "distorted_path", *geometry, opening);
  if (!distorted.ok()) return distorted.status();
  if (absl::Status s = FitToReference(*reference->input, "reference_path", *distorted,
                                      "distorted_path", *scaler);
      !s.ok()) {
    return s;
  }
  reference_ = std::move(reference->input);
  distorted_ = std::move(distorted->input);
  settings->geometry = reference_->geometry();
  if (FeaturesReadChroma(settings->features, settings->geometry.chroma)) {
    reference_->KeepChroma();
    SSIMD_RETURN_IF_ERROR(
        KeepChromaLike(*reference_, "reference_path", *distorted_, "distorted_path"));
  }
  SSIMD_RETURN_IF_ERROR(WithField(
      ctx_->dispatcher->CheckRequest(settings->geometry, settings->features, settings->backend),
      "config"));
  SSIMD_RETURN_IF_ERROR(SkipToStart());
  ReadAhead();
  return settings;
}

void FilesReactor::ReadAhead() {
  // Raw files on disk are read by several threads per side: one thread copying out of the page
  // cache falls short of what the GPU scores at 4K (bench/results/2026-12-04d-h200-raw-readahead).
  constexpr int kPositionalReaders = 4;
  const size_t depth = ReadAheadDepth(reference_->geometry());
  // Enough for every buffer in circulation: the frames waiting on both sides, the pairs being
  // scored, and the pair in hand.
  buffers_ = std::make_shared<LumaBufferPool>(
      2 * depth + 2 * static_cast<size_t>(ctx_->options.max_frames_in_flight) + 2);
  reference_ = std::make_unique<ReadAheadInput>(std::move(reference_), depth, buffers_,
                                                kPositionalReaders);
  distorted_ = std::make_unique<ReadAheadInput>(std::move(distorted_), depth, buffers_,
                                                kPositionalReaders);
}

absl::StatusOr<std::optional<Geometry>> FilesReactor::RequestedGeometry() const {
  const v1::ClipConfig& config = request_.config();
  if (!config.has_geometry()) return std::optional<Geometry>();
  absl::StatusOr<Geometry> parsed = ParseGeometry(config.geometry(), "config.geometry");
  if (!parsed.ok()) return parsed.status();
  // A raw file's frame size depends on its chroma layout, which must therefore be explicit.
  if (config.geometry().pixel_format() == v1::PIXEL_FORMAT_UNSPECIFIED &&
      (IsRaw(reference_name_) || IsRaw(distorted_name_))) {
    return absl::InvalidArgumentError(
        "config.geometry.pixel_format: required for raw .yuv files (it sets the frame size); "
        "expected PIXEL_FORMAT_420, _422, _444 or _400");
  }
  return std::optional<Geometry>(*parsed);
}

absl::Status FilesReactor::CheckRawFilesHaveGeometry(
    const std::optional<Geometry>& geometry) const {
  if (geometry.has_value()) return absl::OkStatus();
  for (const std::string* path : {&reference_name_, &distorted_name_}) {
    if (IsRaw(*path)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "config.geometry: missing; raw file ", *path,
          " needs width, height, bit_depth and pixel_format (.y4m and encoded files carry their "
          "own)"));
    }
  }
  return absl::OkStatus();
}

namespace {

// The request fields that moved a side's first frame, for messages: "start_frame",
// "reference_start_frame" or "start_frame + reference_start_frame".
std::string StartFields(uint64_t common, uint64_t own, absl::string_view own_name) {
  if (common > 0 && own > 0) return absl::StrCat("start_frame + ", own_name);
  return common > 0 ? std::string("start_frame") : std::string(own_name);
}

}  // namespace

absl::Status FilesReactor::SkipToStart() {
  const uint64_t common = request_.start_frame();
  if (absl::Status s = reference_->Skip(common + request_.reference_start_frame()); !s.ok()) {
    return WithField(WithField(s, "reference_path"),
                     StartFields(common, request_.reference_start_frame(),
                                 "reference_start_frame"));
  }
  if (absl::Status s = distorted_->Skip(common + request_.distorted_start_frame()); !s.ok()) {
    return WithField(WithField(s, "distorted_path"),
                     StartFields(common, request_.distorted_start_frame(),
                                 "distorted_start_frame"));
  }
  return absl::OkStatus();
}

void FilesReactor::ReadNext() {
  std::string reference;
  std::string distorted;
  absl::StatusOr<bool> paired = pairer_->Next(&reference, &distorted);
  if (!paired.ok()) {
    // The frames read before a corrupt one are good: their results still reach the client.
    ctx_->metrics->RecordDecodeError(paired.status());
    pipeline_.FetchFailedAfterPending(paired.status());
    return;
  }
  if (!*paired) {
    // Each file meant for the GPU's video engine but decoded on the CPU counts once, at its end.
    for (const VideoInput* input : {reference_.get(), distorted_.get()}) {
      const std::string fallback =
          DecodeFallbackReason(*input, ctx_->options, ctx_->hw_decode.get());
      if (!fallback.empty()) ctx_->metrics->RecordDecodeFallback(fallback);
    }
    pipeline_.SetUnmatchedFrames(pairer_->unmatched().reference, pairer_->unmatched().distorted);
    pipeline_.FetchedEnd();
    return;
  }
  RecordReadStages(*reference_, features_, *ctx_->metrics);
  RecordReadStages(*distorted_, features_, *ctx_->metrics);
  // The planes' buffers go back to the readers once the pair is scored.
  auto give_back = [buffers = buffers_](std::string done) { buffers->Give(std::move(done)); };
  pipeline_.FetchedFrame(pipeline_.frames_fetched(),
                         PlanesFromFrames(std::move(reference), std::move(distorted),
                                          reference_->geometry(), give_back));
}

void FilesReactor::HostWrite(const v1::ScoreClipResponse* response) {
  if (!SerializeToBuffer(*response, &write_buffer_).ok()) {
    pipeline_.WriteDone(false);  // only memory exhaustion gets here
    return;
  }
  StartWrite(&write_buffer_);
}

}  // namespace ssimd
