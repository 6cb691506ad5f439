#include "server/clip_reactor.h"

#include <cstdint>
#include <string>
#include <utility>

#include "absl/strings/str_format.h"
#include "grpcpp/impl/codegen/proto_utils.h"
#include "server/grpc_convert.h"
#include "server/request_parsing.h"

namespace ssimd {

ClipReactor::ClipReactor(ServiceContext* ctx, grpc::CallbackServerContext* call)
    : ctx_(ctx),
      call_(call),
      pipeline_(ctx, this, "ScoreClip", call->peer(), absl::FromChrono(call->deadline())) {
  pipeline_.Start();
}

void ClipReactor::OnReadDone(bool ok) {
  if (!ok) {
    if (call_->IsCancelled()) {
      pipeline_.FetchCancelled();
    } else {
      pipeline_.FetchedEnd();  // the client half-closed
    }
    return;
  }
  // gRPC's own limit is above --max_message_bytes (ADR 0066), so that a message just over it is
  // refused here, with a status the log and the metrics record as the client sees it.
  if (const size_t bytes = read_buffer_.Length();
      bytes > static_cast<size_t>(ctx_->options.max_message_bytes)) {
    read_buffer_.Clear();
    pipeline_.FetchFailed(
        MessageTooLarge("a ScoreClipRequest", bytes, ctx_->options.max_message_bytes));
    return;
  }
  absl::StatusOr<ReceivedClipMessage> message = ReadScoreClipRequest(read_buffer_);
  read_buffer_.Clear();  // the message holds its own references to the slices
  if (!message.ok()) {
    const uint64_t frames = pipeline_.frames_fetched();
    const std::string which =
        !pipeline_.configured() ? std::string("the stream's first ScoreClipRequest")
        : frames == 0           ? std::string("the ScoreClipRequest after the config")
                                : absl::StrFormat("the ScoreClipRequest after frame %d", frames - 1);
    pipeline_.FetchFailed(absl::InvalidArgumentError(
        absl::StrFormat("%s: %s", which, message.status().message())));
    return;
  }
  if (message->frame_index.has_value()) {
    OnFrame(*message->frame_index, std::move(message->planes));
    return;
  }
  if (message->other.has_config()) {
    OnConfig(message->other.config());
    return;
  }
  pipeline_.FetchFailed(absl::InvalidArgumentError(
      "ScoreClipRequest: neither config nor frame is set; send config first, then frames"));
}

void ClipReactor::HostWrite(const v1::ScoreClipResponse* response) {
  // The previous write is done, so its buffer can be reused.
  if (!SerializeToBuffer(*response, &write_buffer_).ok()) {
    // Only memory exhaustion gets here: end the stream as if the write had failed.
    pipeline_.WriteDone(false);
    return;
  }
  StartWrite(&write_buffer_);
}

void ClipReactor::OnConfig(const v1::ClipConfig& config) {
  if (pipeline_.configured()) {
    pipeline_.FetchFailed(absl::FailedPreconditionError(
        "config: this stream already has its config; send it once, as the first message, and "
        "open a new stream for another clip"));
    return;
  }
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

void ClipReactor::OnFrame(uint64_t index, ReceivedPlanes planes) {
  if (!pipeline_.configured()) {
    pipeline_.FetchFailed(absl::FailedPreconditionError(
        "frame: received before the config; the first message of a stream must set config"));
    return;
  }
  const uint64_t expected = pipeline_.frames_fetched();
  if (index != expected) {
    pipeline_.FetchFailed(absl::InvalidArgumentError(absl::StrFormat(
        "frame.index: expected %d (frames are numbered 0, 1, 2, ... in order), got %d", expected,
        index)));
    return;
  }
  // The geometry is fixed once configured, so reading it here needs no lock.
  const Geometry geometry = pipeline_.geometry();
  absl::Status status = CheckPlaneSize(geometry, planes.reference.size(), "frame.reference_luma");
  if (status.ok()) {
    status = CheckPlaneSize(geometry, planes.distorted.size(), "frame.distorted_luma");
  }
  if (status.ok()) {
    status = ChromaToScore(geometry, pipeline_.features(), planes, "frame.").status();
  }
  if (!status.ok()) {
    pipeline_.FetchFailed(
        absl::Status(status.code(), absl::StrFormat("frame %d: %s", index, status.message())));
    return;
  }
  pipeline_.FetchedFrame(index, std::move(planes));
}

}  // namespace ssimd
