// C++ client of ssimd.v1.ScoringService: connection settings, the unary calls, and a clip stream
// that pipelines frames (one thread sends while another receives, so the server's read-ahead is
// used and neither side waits on the other).
//
//   auto client = SsimdClient::Connect({.target = "127.0.0.1:50051"});
//   auto report = (*client)->ScoreClip(config, next_pair, on_frame, absl::Minutes(10));
#ifndef SSIMD_CLIENT_SSIMD_CLIENT_H_
#define SSIMD_CLIENT_SSIMD_CLIENT_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "client/outgoing_message.h"
#include "grpcpp/grpcpp.h"
#include "proto/grpc/health/v1/health.grpc.pb.h"
#include "proto/ssimd/v1/ssimd.grpc.pb.h"

namespace ssimd {

struct ClientOptions {
  // host:port, a gRPC target URI, or a comma list of IP:PORT (channel_config.h). A list or a
  // dns:/// name spreads calls round-robin over the servers that report SERVING.
  std::string target = "127.0.0.1:50051";
  // TLS: on when tls is true or any file is set. ca_file verifies the server (system roots when
  // empty); cert_file and key_file present a client certificate (mTLS).
  bool tls = false;
  std::string ca_file;
  std::string cert_file;
  std::string key_file;
  // Largest message sent or received; must be at least what a frame pair needs.
  int64_t max_message_bytes = int64_t{160} << 20;
};

// What a clip stream produced: every frame's result in order, then the summary.
struct ClipReport {
  std::vector<v1::FrameResult> frames;
  v1::ClipSummary summary;
};

// What a ScoreLadder call produced: each rendition's frames (in order) and summary by its name,
// and the ladder's summary.
struct LadderReport {
  std::map<std::string, ClipReport> renditions;
  v1::LadderSummary ladder;
};

// Fills the two luma planes of the next frame pair; false when there are no more frames.
using FramePairSource = std::function<absl::StatusOr<bool>(std::string* reference,
                                                           std::string* distorted)>;
// Fills the planes of the next frame pair: the lumas and, where a requested feature reads chroma
// (FeaturesReadChroma), the chroma planes; false when there are no more frames.
using FramePlanesSource = std::function<absl::StatusOr<bool>(OutgoingPlanes* planes)>;
// Called for each frame result as it arrives (e.g. to draw progress); may be empty.
using FrameCallback = std::function<void(const v1::FrameResult&)>;

class SsimdClient {
 public:
  // INVALID_ARGUMENT when a TLS file cannot be read or the target is malformed. Connecting
  // itself is lazy.
  static absl::StatusOr<std::unique_ptr<SsimdClient>> Connect(const ClientOptions& options);
  // The channel Connect makes, for callers that share one among several clients or add
  // arguments of their own (`args`; the message limits and service config come from `options`).
  static absl::StatusOr<std::shared_ptr<grpc::Channel>> CreateChannel(
      const ClientOptions& options, grpc::ChannelArguments args = {});
  explicit SsimdClient(std::shared_ptr<grpc::Channel> channel);

  absl::StatusOr<v1::Capabilities> GetCapabilities(absl::Duration timeout);
  absl::StatusOr<v1::FrameResult> ScorePair(const v1::ScorePairRequest& request,
                                            absl::Duration timeout);
  // The same with the planes apart: `fields` holds the rest (its plane fields stay empty), and
  // the planes are sent from `planes` as they are, without being copied into a message. `planes`
  // may be shared by concurrent calls.
  absl::StatusOr<v1::FrameResult> ScorePair(const v1::ScorePairRequest& fields,
                                            std::shared_ptr<const OutgoingPlanes> planes,
                                            absl::Duration timeout);
  // grpc.health.v1 Check for `service` ("" = the whole server).
  absl::StatusOr<grpc::health::v1::HealthCheckResponse::ServingStatus> CheckHealth(
      const std::string& service, absl::Duration timeout);

  // Streams one clip through ScoreClip: sends `config`, then frames from `next_pair` (indices
  // 0, 1, ...), and collects the results. The whole stream must end within `timeout`. Errors
  // carry the server's status code and message. The planes `next_pair` fills go out as they are
  // (outgoing_message.h): each frame gets fresh strings, which gRPC frees once they are sent.
  absl::StatusOr<ClipReport> ScoreClip(const v1::ClipConfig& config,
                                       const FramePairSource& next_pair,
                                       const FrameCallback& on_frame, absl::Duration timeout);
  // The same with frames that may carry chroma planes.
  absl::StatusOr<ClipReport> ScoreClip(const v1::ClipConfig& config,
                                       const FramePlanesSource& next_frame,
                                       const FrameCallback& on_frame, absl::Duration timeout);

  // ScoreFiles: the server reads the files from its files root.
  absl::StatusOr<ClipReport> ScoreFiles(const v1::ScoreFilesRequest& request,
                                        const FrameCallback& on_frame, absl::Duration timeout);

  // Connects and then lets the channel work for `wait`. gRPC's blocking API moves connections
  // forward only while some call waits on the channel, and round-robin picks among the servers
  // connected at that moment: before calls meant to go to different servers at once (or after a
  // server failed), this gives every address of a list the chance to connect (or be dropped).
  void LetServersConnect(absl::Duration wait);

  // ScoreLadder: the server decodes the source and renditions from its files root.
  absl::StatusOr<LadderReport> ScoreLadder(const v1::ScoreLadderRequest& request,
                                           absl::Duration timeout);

  // UploadFile: sends the local file `path` in chunks of 1 MiB and returns the receipt, whose
  // `input` names the upload in ScoreFiles and ScoreLadder requests. NOT_FOUND or
  // PERMISSION_DENIED (naming the path) when the file cannot be read; the server's status
  // otherwise (FAILED_PRECONDITION: it takes no uploads; RESOURCE_EXHAUSTED: over its limit).
  absl::StatusOr<v1::UploadReceipt> UploadFile(const std::string& path, absl::Duration timeout);

  grpc::Channel* channel() const { return channel_.get(); }

 private:
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<v1::ScoringService::Stub> stub_;
  // ScoreClip and ScorePair called with raw requests (outgoing_message.h), typed responses.
  grpc::internal::RpcMethod score_clip_method_;
  grpc::internal::RpcMethod score_pair_method_;
  std::unique_ptr<grpc::health::v1::Health::Stub> health_;
};

// grpc::Status to absl::Status (the codes share their numbers).
absl::Status FromGrpcStatus(const grpc::Status& status);

}  // namespace ssimd

#endif  // SSIMD_CLIENT_SSIMD_CLIENT_H_
