#include "client/ssimd_client.h"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/synchronization/mutex.h"
#include "client/channel_config.h"
#include "grpcpp/impl/codegen/client_unary_call.h"
#include "grpcpp/impl/codegen/proto_utils.h"
#include "grpcpp/impl/codegen/sync_stream.h"

namespace ssimd {
namespace {

constexpr char kScoreClipMethod[] = "/ssimd.v1.ScoringService/ScoreClip";
constexpr char kScorePairMethod[] = "/ssimd.v1.ScoringService/ScorePair";

absl::StatusOr<std::string> ReadFile(const std::string& path, const char* what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::InvalidArgumentError(absl::StrCat(what, ": cannot read ", path));
  std::stringstream contents;
  contents << in.rdbuf();
  return contents.str();
}

void SetDeadline(grpc::ClientContext* context, absl::Duration timeout) {
  context->set_deadline(std::chrono::system_clock::now() + absl::ToChronoMilliseconds(timeout));
}

// Takes the results of a ScoreClip/ScoreFiles stream until the server closes it.
template <typename Reader>
void CollectResults(Reader* reader, const FrameCallback& on_frame, ClipReport* report,
                    absl::Status* protocol_error) {
  v1::ScoreClipResponse response;
  while (reader->Read(&response)) {
    if (response.has_frame()) {
      if (on_frame) on_frame(response.frame());
      report->frames.push_back(std::move(*response.mutable_frame()));
    } else if (response.has_summary()) {
      report->summary = std::move(*response.mutable_summary());
    } else if (protocol_error->ok()) {
      *protocol_error = absl::InternalError("the server sent a response with neither frame nor summary");
    }
  }
}

}  // namespace

absl::Status FromGrpcStatus(const grpc::Status& status) {
  if (status.ok()) return absl::OkStatus();
  return absl::Status(static_cast<absl::StatusCode>(status.error_code()), status.error_message());
}

absl::StatusOr<std::unique_ptr<SsimdClient>> SsimdClient::Connect(const ClientOptions& options) {
  auto channel = CreateChannel(options);
  if (!channel.ok()) return channel.status();
  return std::make_unique<SsimdClient>(*std::move(channel));
}

absl::StatusOr<std::shared_ptr<grpc::Channel>> SsimdClient::CreateChannel(
    const ClientOptions& options, grpc::ChannelArguments args) {
  std::shared_ptr<grpc::ChannelCredentials> credentials;
  if (options.tls || !options.ca_file.empty() || !options.cert_file.empty() ||
      !options.key_file.empty()) {
    grpc::SslCredentialsOptions ssl;
    if (!options.ca_file.empty()) {
      auto ca = ReadFile(options.ca_file, "CA file");
      if (!ca.ok()) return ca.status();
      ssl.pem_root_certs = *ca;
    }
    if (options.cert_file.empty() != options.key_file.empty()) {
      return absl::InvalidArgumentError(
          "a client certificate needs both the certificate file and its key file");
    }
    if (!options.cert_file.empty()) {
      auto cert = ReadFile(options.cert_file, "client certificate");
      if (!cert.ok()) return cert.status();
      auto key = ReadFile(options.key_file, "client key");
      if (!key.ok()) return key.status();
      ssl.pem_cert_chain = *cert;
      ssl.pem_private_key = *key;
    }
    credentials = grpc::SslCredentials(ssl);
  } else {
    credentials = grpc::InsecureChannelCredentials();
  }
  auto target = ChannelTarget(options.target);
  if (!target.ok()) return target.status();
  args.SetMaxSendMessageSize(static_cast<int>(options.max_message_bytes));
  args.SetMaxReceiveMessageSize(static_cast<int>(options.max_message_bytes));
  args.SetServiceConfigJSON(ServiceConfigJson(TargetMayNameManyServers(*target)));
  args.SetInt(kRetryBufferArg, static_cast<int>(options.max_message_bytes));
  return grpc::CreateCustomChannel(*target, credentials, args);
}

SsimdClient::SsimdClient(std::shared_ptr<grpc::Channel> channel)
    : channel_(std::move(channel)),
      stub_(v1::ScoringService::NewStub(channel_)),
      score_clip_method_(kScoreClipMethod, grpc::internal::RpcMethod::BIDI_STREAMING, channel_),
      score_pair_method_(kScorePairMethod, grpc::internal::RpcMethod::NORMAL_RPC, channel_),
      health_(grpc::health::v1::Health::NewStub(channel_)) {}

absl::StatusOr<v1::Capabilities> SsimdClient::GetCapabilities(absl::Duration timeout) {
  grpc::ClientContext context;
  SetDeadline(&context, timeout);
  v1::Capabilities out;
  grpc::Status status = stub_->GetCapabilities(&context, v1::GetCapabilitiesRequest(), &out);
  if (!status.ok()) return FromGrpcStatus(status);
  return out;
}

absl::StatusOr<v1::FrameResult> SsimdClient::ScorePair(const v1::ScorePairRequest& request,
                                                       absl::Duration timeout) {
  grpc::ClientContext context;
  SetDeadline(&context, timeout);
  v1::ScorePairResponse response;
  grpc::Status status = stub_->ScorePair(&context, request, &response);
  if (!status.ok()) return FromGrpcStatus(status);
  return response.result();
}

absl::StatusOr<v1::FrameResult> SsimdClient::ScorePair(const v1::ScorePairRequest& fields,
                                                       std::shared_ptr<const OutgoingPlanes> planes,
                                                       absl::Duration timeout) {
  grpc::ClientContext context;
  SetDeadline(&context, timeout);
  v1::ScorePairResponse response;
  grpc::Status status = grpc::internal::BlockingUnaryCall<grpc::ByteBuffer, v1::ScorePairResponse>(
      channel_.get(), score_pair_method_, &context, PairRequestBuffer(fields, std::move(planes)),
      &response);
  if (!status.ok()) return FromGrpcStatus(status);
  return response.result();
}

absl::StatusOr<grpc::health::v1::HealthCheckResponse::ServingStatus> SsimdClient::CheckHealth(
    const std::string& service, absl::Duration timeout) {
  grpc::ClientContext context;
  SetDeadline(&context, timeout);
  grpc::health::v1::HealthCheckRequest request;
  request.set_service(service);
  grpc::health::v1::HealthCheckResponse response;
  grpc::Status status = health_->Check(&context, request, &response);
  if (!status.ok()) return FromGrpcStatus(status);
  return response.status();
}

absl::StatusOr<ClipReport> SsimdClient::ScoreClip(const v1::ClipConfig& config,
                                                  const FramePairSource& next_pair,
                                                  const FrameCallback& on_frame,
                                                  absl::Duration timeout) {
  const FramePlanesSource next_frame = [&next_pair](OutgoingPlanes* planes) {
    return next_pair(&planes->reference, &planes->distorted);
  };
  return ScoreClip(config, next_frame, on_frame, timeout);
}

absl::StatusOr<ClipReport> SsimdClient::ScoreClip(const v1::ClipConfig& config,
                                                  const FramePlanesSource& next_frame,
                                                  const FrameCallback& on_frame,
                                                  absl::Duration timeout) {
  grpc::ClientContext context;
  SetDeadline(&context, timeout);
  std::unique_ptr<grpc::ClientReaderWriter<grpc::ByteBuffer, v1::ScoreClipResponse>> stream(
      grpc::internal::ClientReaderWriterFactory<grpc::ByteBuffer, v1::ScoreClipResponse>::Create(
          channel_.get(), score_clip_method_, &context));

  // The sender runs beside the receiver: a sync stream may Write on one thread while it Reads on
  // another, which lets the server keep several frames in flight.
  absl::Status send_error;
  std::thread sender([&] {
    v1::ScoreClipRequest request;
    *request.mutable_config() = config;
    grpc::ByteBuffer config_buffer;
    bool own_buffer = false;
    bool open = grpc::SerializationTraits<v1::ScoreClipRequest>::Serialize(
                    request, &config_buffer, &own_buffer)
                    .ok() &&
                stream->Write(config_buffer);
    for (uint64_t index = 0; open; ++index) {
      auto planes = std::make_shared<OutgoingPlanes>();
      absl::StatusOr<bool> more = next_frame(planes.get());
      if (!more.ok()) {
        send_error = more.status();
        context.TryCancel();
        return;
      }
      if (!*more) break;
      open = stream->Write(FrameRequestBuffer(index, std::move(planes)));
    }
    // When a write failed the server has ended the stream; Finish says why.
    stream->WritesDone();
  });

  ClipReport report;
  absl::Status protocol_error;
  CollectResults(stream.get(), on_frame, &report, &protocol_error);
  sender.join();
  grpc::Status status = stream->Finish();
  if (!send_error.ok()) return send_error;
  if (!status.ok()) return FromGrpcStatus(status);
  if (!protocol_error.ok()) return protocol_error;
  return report;
}

absl::StatusOr<ClipReport> SsimdClient::ScoreFiles(const v1::ScoreFilesRequest& request,
                                                   const FrameCallback& on_frame,
                                                   absl::Duration timeout) {
  grpc::ClientContext context;
  SetDeadline(&context, timeout);
  auto reader = stub_->ScoreFiles(&context, request);
  ClipReport report;
  absl::Status protocol_error;
  CollectResults(reader.get(), on_frame, &report, &protocol_error);
  grpc::Status status = reader->Finish();
  if (!status.ok()) return FromGrpcStatus(status);
  if (!protocol_error.ok()) return protocol_error;
  return report;
}

absl::StatusOr<v1::UploadReceipt> SsimdClient::UploadFile(const std::string& path,
                                                          absl::Duration timeout) {
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    return absl::NotFoundError(absl::StrCat("cannot read '", path, "': ", std::strerror(errno)));
  }
  grpc::ClientContext context;
  SetDeadline(&context, timeout);
  v1::UploadReceipt receipt;
  auto writer = stub_->UploadFile(&context, &receipt);
  constexpr std::streamsize kChunkBytes = 1 << 20;
  v1::UploadChunk chunk;
  chunk.set_file_name(std::filesystem::path(path).filename().string());
  std::string buffer(kChunkBytes, '\0');
  bool first = true;
  while (true) {
    file.read(buffer.data(), kChunkBytes);
    const std::streamsize got = file.gcount();
    if (got == 0 && !first) break;
    chunk.set_data(buffer.data(), static_cast<size_t>(got));
    // A failed write means the server ended the call; Finish says why.
    if (!writer->Write(chunk)) break;
    chunk.clear_file_name();
    first = false;
    if (got < kChunkBytes) break;
  }
  if (file.bad()) {
    context.TryCancel();
    writer->Finish();
    return absl::DataLossError(absl::StrCat("reading '", path, "' failed midway"));
  }
  writer->WritesDone();
  grpc::Status status = writer->Finish();
  if (!status.ok()) return FromGrpcStatus(status);
  return receipt;
}

void SsimdClient::LetServersConnect(absl::Duration wait) {
  const auto deadline = std::chrono::system_clock::now() + absl::ToChronoMilliseconds(wait);
  channel_->WaitForConnected(deadline);
  // The state stays READY, so this polls the channel until the deadline.
  channel_->WaitForStateChange(channel_->GetState(true), deadline);
}

absl::StatusOr<LadderReport> SsimdClient::ScoreLadder(const v1::ScoreLadderRequest& request,
                                                     absl::Duration timeout) {
  grpc::ClientContext context;
  SetDeadline(&context, timeout);
  auto reader = stub_->ScoreLadder(&context, request);
  LadderReport report;
  v1::ScoreLadderResponse response;
  while (reader->Read(&response)) {
    if (response.has_frame()) {
      report.renditions[response.frame().rendition()].frames.push_back(
          std::move(*response.mutable_frame()->mutable_result()));
    } else if (response.has_rendition_summary()) {
      report.renditions[response.rendition_summary().rendition()].summary =
          std::move(*response.mutable_rendition_summary()->mutable_summary());
    } else if (response.has_ladder_summary()) {
      report.ladder = std::move(*response.mutable_ladder_summary());
    }
  }
  grpc::Status status = reader->Finish();
  if (!status.ok()) return FromGrpcStatus(status);
  return report;
}

}  // namespace ssimd
