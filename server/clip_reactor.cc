#include "server/clip_reactor.h"

#include <string>
#include <utility>

#include "absl/strings/str_format.h"
#include "server/request_parsing.h"

namespace ssimd {

ClipReactor::ClipReactor(ServiceContext* ctx, grpc::CallbackServerContext* call)
    : ctx_(ctx), pipeline_(ctx, this, "ScoreClip", call->peer()) {
  pipeline_.Start();
}

void ClipReactor::OnReadDone(bool ok) {
  if (!ok) {
    pipeline_.FetchedEnd();  // the client half-closed (or the call ended)
    return;
  }
  switch (request_.message_case()) {
    case v1::ScoreClipRequest::kConfig:
      OnConfig();
      return;
    case v1::ScoreClipRequest::kFrame:
      OnFrame();
      return;
    default:
      pipeline_.FetchFailed(absl::InvalidArgumentError(
          "ScoreClipRequest: neither config nor frame is set; send config first, then frames"));
      return;
  }
}

void ClipReactor::OnConfig() {
  if (pipeline_.configured()) {
    pipeline_.FetchFailed(absl::FailedPreconditionError(
        "config: this stream already has its config; send it once, as the first message, and "
        "open a new stream for another clip"));
    return;
  }
  const v1::ClipConfig& config = request_.config();
  if (!config.has_geometry()) {
    pipeline_.FetchFailed(absl::InvalidArgumentError(
        "config.geometry: missing; give width, height, bit_depth and pixel_format"));
    return;
  }
  auto geometry = ParseGeometry(config.geometry(), "config.geometry");
  if (!geometry.ok()) {
    pipeline_.FetchFailed(geometry.status());
    return;
  }
  auto settings = ParseClipOptions(config, ctx_->options, "config");
  if (!settings.ok()) {
    pipeline_.FetchFailed(settings.status());
    return;
  }
  settings->geometry = *geometry;
  absl::Status status =
      CheckFitsMessage(settings->geometry, ctx_->options.max_message_bytes, "config.geometry");
  if (status.ok()) {
    status = WithField(
        ctx_->dispatcher->CheckRequest(settings->geometry, settings->features, settings->backend),
        "config");
  }
  if (!status.ok()) {
    pipeline_.FetchFailed(status);
    return;
  }
  pipeline_.FetchedConfig(*std::move(settings));
}

void ClipReactor::OnFrame() {
  if (!pipeline_.configured()) {
    pipeline_.FetchFailed(absl::FailedPreconditionError(
        "frame: received before the config; the first message of a stream must set config"));
    return;
  }
  v1::FramePair* frame = request_.mutable_frame();
  const uint64_t expected = pipeline_.frames_fetched();
  if (frame->index() != expected) {
    pipeline_.FetchFailed(absl::InvalidArgumentError(absl::StrFormat(
        "frame.index: expected %d (frames are numbered 0, 1, 2, ... in order), got %d", expected,
        frame->index())));
    return;
  }
  // The geometry is fixed once configured, so reading it here needs no lock.
  const Geometry geometry = pipeline_.geometry();
  absl::Status status =
      CheckPlaneSize(geometry, frame->reference_luma().size(), "frame.reference_luma");
  if (status.ok()) {
    status = CheckPlaneSize(geometry, frame->distorted_luma().size(), "frame.distorted_luma");
  }
  if (!status.ok()) {
    pipeline_.FetchFailed(absl::Status(
        status.code(), absl::StrFormat("frame %d: %s", frame->index(), status.message())));
    return;
  }
  // Swapping the planes out leaves the request empty for the next read, without a copy.
  std::string reference;
  std::string distorted;
  reference.swap(*frame->mutable_reference_luma());
  distorted.swap(*frame->mutable_distorted_luma());
  pipeline_.FetchedFrame(frame->index(), std::move(reference), std::move(distorted));
}

}  // namespace ssimd
