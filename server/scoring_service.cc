#include "server/scoring_service.h"

#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "base/status_macros.h"
#include "engine/vmaf/temporal_finish.h"
#include "grpcpp/impl/codegen/proto_utils.h"
#include "server/byte_buffer_request.h"
#include "server/capabilities.h"
#include "server/clip_reactor.h"
#include "server/files_reactor.h"
#include "server/grpc_convert.h"
#include "server/ladder_reactor.h"
#include "server/logging.h"
#include "server/request_parsing.h"
#include "server/upload_reactor.h"

namespace ssimd {
namespace {

// Answers a refused stream at once and cleans up after itself.
template <typename Reactor>
class Rejected final : public Reactor {
 public:
  explicit Rejected(grpc::Status status) { this->Finish(std::move(status)); }
  void OnDone() override { delete this; }
};

grpc::Status Unparseable(const char* message) {
  return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                      absl::StrCat("the request is not a valid ssimd.v1.", message,
                                   " (protobuf encoding); check the client's generated code"));
}

}  // namespace

std::optional<grpc::Status> ScoringServiceImpl::RefuseStream(const char* method) {
  if (ctx_->draining.load()) {
    ctx_->metrics->RecordRpc(method, StatusCodeName(grpc::StatusCode::UNAVAILABLE));
    return ShuttingDown();
  }
  // Counted before the second look at `draining`, so that a shutdown waiting for the count to
  // reach 0 cannot miss a stream admitted at the same moment.
  if (ctx_->active_streams.fetch_add(1) < ctx_->options.max_concurrent_streams &&
      !ctx_->draining.load()) {
    return std::nullopt;
  }
  ctx_->active_streams.fetch_sub(1);
  if (ctx_->draining.load()) {
    ctx_->metrics->RecordRpc(method, StatusCodeName(grpc::StatusCode::UNAVAILABLE));
    return ShuttingDown();
  }
  ctx_->metrics->RecordRpc(method, StatusCodeName(grpc::StatusCode::RESOURCE_EXHAUSTED));
  LogEvent(spdlog::level::warn, "stream refused: too many concurrent streams",
           {{"method", method},
            {"max_concurrent_streams", absl::StrCat(ctx_->options.max_concurrent_streams)}});
  return grpc::Status(
      grpc::StatusCode::RESOURCE_EXHAUSTED,
      absl::StrFormat("this server already serves its maximum of %d concurrent streams "
                      "(--max_concurrent_streams); retry with backoff or use another replica",
                      ctx_->options.max_concurrent_streams));
}

std::optional<grpc::Status> ScoringServiceImpl::RefuseUnparseable(
    const char* method, const grpc::ByteBuffer& request, google::protobuf::Message* parsed) {
  if (ParseRawMessage(request, parsed)) return std::nullopt;
  const grpc::Status status = Unparseable(parsed->GetDescriptor()->name().c_str());
  ctx_->metrics->RecordRpc(method, StatusCodeName(status.error_code()));
  LogEvent(spdlog::level::info, "request refused",
           {{"method", method},
            {"status", StatusCodeName(status.error_code())},
            {"error", status.error_message()}});
  return status;
}

grpc::Status ScoringServiceImpl::ShuttingDown() {
  return grpc::Status(grpc::StatusCode::UNAVAILABLE,
                      "this server is shutting down and takes no new requests; retry on another "
                      "replica");
}

grpc::ServerBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer>* ScoringServiceImpl::ScoreClip(
    grpc::CallbackServerContext* call) {
  if (std::optional<grpc::Status> refused = RefuseStream("ScoreClip")) {
    return new Rejected<grpc::ServerBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer>>(
        *std::move(refused));
  }
  return new ClipReactor(ctx_, call);
}

grpc::ServerWriteReactor<grpc::ByteBuffer>* ScoringServiceImpl::ScoreFiles(
    grpc::CallbackServerContext* call, const grpc::ByteBuffer* request) {
  v1::ScoreFilesRequest parsed;
  if (std::optional<grpc::Status> refused = RefuseUnparseable("ScoreFiles", *request, &parsed)) {
    return new Rejected<grpc::ServerWriteReactor<grpc::ByteBuffer>>(*std::move(refused));
  }
  if (std::optional<grpc::Status> refused = RefuseStream("ScoreFiles")) {
    return new Rejected<grpc::ServerWriteReactor<grpc::ByteBuffer>>(*std::move(refused));
  }
  return new FilesReactor(ctx_, call, parsed);
}

grpc::ServerWriteReactor<grpc::ByteBuffer>* ScoringServiceImpl::ScoreLadder(
    grpc::CallbackServerContext* call, const grpc::ByteBuffer* request) {
  v1::ScoreLadderRequest parsed;
  if (std::optional<grpc::Status> refused = RefuseUnparseable("ScoreLadder", *request, &parsed)) {
    return new Rejected<grpc::ServerWriteReactor<grpc::ByteBuffer>>(*std::move(refused));
  }
  if (std::optional<grpc::Status> refused = RefuseStream("ScoreLadder")) {
    return new Rejected<grpc::ServerWriteReactor<grpc::ByteBuffer>>(*std::move(refused));
  }
  return new LadderReactor(ctx_, call, parsed);
}

grpc::ServerReadReactor<grpc::ByteBuffer>* ScoringServiceImpl::UploadFile(
    grpc::CallbackServerContext* call, grpc::ByteBuffer* response) {
  if (ctx_->uploads == nullptr) {
    ctx_->metrics->RecordRpc("UploadFile", StatusCodeName(grpc::StatusCode::FAILED_PRECONDITION));
    return new Rejected<grpc::ServerReadReactor<grpc::ByteBuffer>>(grpc::Status(
        grpc::StatusCode::FAILED_PRECONDITION,
        "uploads are disabled on this server: start it with --upload_dir=DIR; meanwhile give "
        "ScoreFiles a path below the server's --files_root, or stream the frames with "
        "ScoreClip"));
  }
  if (std::optional<grpc::Status> refused = RefuseStream("UploadFile")) {
    return new Rejected<grpc::ServerReadReactor<grpc::ByteBuffer>>(*std::move(refused));
  }
  return new UploadReactor(ctx_, call, response);
}

void ScoringServiceImpl::FinishUnary(grpc::ServerUnaryReactor* reactor, const char* method,
                                     const grpc::Status& status) {
  ctx_->metrics->RecordRpc(method, StatusCodeName(status.error_code()));
  if (!status.ok()) {
    LogEvent(spdlog::level::info, "request refused",
             {{"method", method},
              {"status", StatusCodeName(status.error_code())},
              {"error", status.error_message()}});
  }
  reactor->Finish(status);
}

absl::Status ScoringServiceImpl::CheckPairRequest(const ReceivedPairMessage& message,
                                                  ClipSettings& settings) const {
  const v1::ScorePairRequest& request = message.fields;
  if (!request.has_geometry()) {
    return absl::InvalidArgumentError(
        "geometry: missing; give width, height, bit_depth (and pixel_format)");
  }
  absl::StatusOr<Geometry> geometry = ParseGeometry(request.geometry(), "geometry");
  if (!geometry.ok()) return geometry.status();
  settings.geometry = *geometry;
  absl::StatusOr<FeatureSet> features = ParseFeatures(request.features(), "features", *ctx_->options.vmaf_models);
  if (!features.ok()) return features.status();
  settings.features = *features;
  SSIMD_RETURN_IF_ERROR(WithField(CheckOnePairFeatures(settings.features), "features"));
  absl::StatusOr<BackendPreference> backend =
      ParseBackend(request.backend(), ctx_->options.backend_policy, "backend");
  if (!backend.ok()) return backend.status();
  settings.backend = *backend;
  if (absl::Status s =
          CheckPlaneSize(settings.geometry, message.planes.reference.size(), "reference_luma");
      !s.ok()) {
    return s;
  }
  if (absl::Status s =
          CheckPlaneSize(settings.geometry, message.planes.distorted.size(), "distorted_luma");
      !s.ok()) {
    return s;
  }
  if (absl::Status s = ChromaToScore(settings.geometry, settings.features, message.planes, "")
                           .status();
      !s.ok()) {
    return s;
  }
  return ctx_->dispatcher->CheckRequest(settings.geometry, settings.features, settings.backend);
}

grpc::ServerUnaryReactor* ScoringServiceImpl::ScorePair(grpc::CallbackServerContext* call,
                                                        const grpc::ByteBuffer* request,
                                                        grpc::ByteBuffer* response) {
  grpc::ServerUnaryReactor* reactor = call->DefaultReactor();
  // Counted before `draining` is read, as in RefuseStream.
  const int pending_before = ctx_->pending_pairs.fetch_add(1);
  if (ctx_->draining.load()) {
    ctx_->pending_pairs.fetch_sub(1);
    FinishUnary(reactor, "ScorePair", ShuttingDown());
    return reactor;
  }
  if (pending_before >= ctx_->options.max_pending_pairs) {
    ctx_->pending_pairs.fetch_sub(1);
    FinishUnary(reactor, "ScorePair",
                grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED,
                             absl::StrFormat("this server already has %d ScorePair calls pending "
                                             "(--max_pending_pairs); retry with backoff",
                                             ctx_->options.max_pending_pairs)));
    return reactor;
  }
  if (const size_t bytes = request->Length();
      bytes > static_cast<size_t>(ctx_->options.max_message_bytes)) {
    ctx_->pending_pairs.fetch_sub(1);
    FinishUnary(reactor, "ScorePair",
                ToGrpcStatus(MessageTooLarge("the ScorePairRequest", bytes,
                                             ctx_->options.max_message_bytes)));
    return reactor;
  }
  absl::StatusOr<ReceivedPairMessage> message = ReadScorePairRequest(*request);
  ClipSettings settings;
  absl::Status status = message.status();
  if (status.ok()) status = CheckPairRequest(*message, settings);
  if (!status.ok()) {
    ctx_->pending_pairs.fetch_sub(1);
    FinishUnary(reactor, "ScorePair", ToGrpcStatus(status));
    return reactor;
  }
  auto shared = std::make_shared<const ReceivedPairMessage>(*std::move(message));
  const absl::Time submitted = absl::Now();
  ctx_->pool->Submit([this, call, reactor, shared, response, settings, submitted] {
    ScorePairOnWorker(call, reactor, *shared, response, settings, submitted);
  });
  return reactor;
}

void ScoringServiceImpl::ScorePairOnWorker(grpc::CallbackServerContext* call,
                                           grpc::ServerUnaryReactor* reactor,
                                           const ReceivedPairMessage& message,
                                           grpc::ByteBuffer* response,
                                           const ClipSettings& settings,
                                           absl::Time submitted) {
  const absl::Duration pool_wait = absl::Now() - submitted;
  grpc::Status status;
  if (call->IsCancelled()) {
    status = ClientDeadlinePassed(absl::FromChrono(call->deadline()))
                 ? grpc::Status(grpc::StatusCode::DEADLINE_EXCEEDED,
                                "the client's deadline passed before the pair was scored")
                 : grpc::Status(grpc::StatusCode::CANCELLED, "cancelled before it was scored");
  } else {
    // Its sizes were checked with the request.
    absl::StatusOr<std::optional<FrameChroma>> chroma =
        ChromaToScore(settings.geometry, settings.features, message.planes, "");
    absl::StatusOr<ScoreResult> result =
        chroma.ok() ? ctx_->dispatcher->ScorePieces(
                          settings.geometry, settings.features,
                          {&message.planes.reference, &message.planes.distorted, nullptr,
                           chroma->has_value() ? &**chroma : nullptr},
                          settings.backend)
                    : absl::StatusOr<ScoreResult>(chroma.status());
    absl::StatusOr<FrameScores> temporal =
        result.ok() ? FinishLoneFrame(settings.features, result->scores)
                    : absl::StatusOr<FrameScores>(FrameScores());
    if (result.ok() && !temporal.ok()) result = temporal.status();
    if (result.ok()) {
      result->timings.queue_wait += absl::ToDoubleSeconds(pool_wait);
      // The frame's scores are all in: RecordFrame sees the temporal ones too.
      ctx_->metrics->RecordFrame(settings.features, *result);
      v1::ScorePairResponse out;
      FillFrameResult(0, *result, out.mutable_result());
      status = SerializeToBuffer(out, response);
    } else {
      status = ToGrpcStatus(result.status());
    }
  }
  ctx_->pending_pairs.fetch_sub(1);
  FinishUnary(reactor, "ScorePair", status);
}

grpc::ServerUnaryReactor* ScoringServiceImpl::GetCapabilities(grpc::CallbackServerContext* call,
                                                              const grpc::ByteBuffer* request,
                                                              grpc::ByteBuffer* response) {
  grpc::ServerUnaryReactor* reactor = call->DefaultReactor();
  v1::GetCapabilitiesRequest parsed;
  if (!ParseRawMessage(*request, &parsed)) {
    FinishUnary(reactor, "GetCapabilities", Unparseable("GetCapabilitiesRequest"));
    return reactor;
  }
  if (ctx_->draining.load()) {
    FinishUnary(reactor, "GetCapabilities", ShuttingDown());
    return reactor;
  }
  v1::Capabilities capabilities;
  FillCapabilities(*ctx_, &capabilities);
  FinishUnary(reactor, "GetCapabilities", SerializeToBuffer(capabilities, response));
  return reactor;
}

}  // namespace ssimd
