// ssimd.v1.ScoringService on gRPC's callback API: no thread is parked per stream, and scoring runs
// on the worker pool.
#ifndef SSIMD_SERVER_SCORING_SERVICE_H_
#define SSIMD_SERVER_SCORING_SERVICE_H_

#include <optional>

#include "absl/time/time.h"
#include "grpcpp/grpcpp.h"
#include "proto/ssimd/v1/ssimd.grpc.pb.h"
#include "server/request_parsing.h"
#include "server/service_context.h"
#include "server/wire_request.h"

namespace ssimd {

// ScoreClip and ScorePair are raw methods: their requests are read from the received bytes by
// wire_request.h, so that frame planes are not copied on the way in. ScoreFiles, ScoreLadder and
// GetCapabilities are raw too, for another reason: gRPC answers a typed method whose request does
// not parse with UNIMPLEMENTED and an empty message, as if the method did not exist, and never
// tells the service; read here, such a request gets INVALID_ARGUMENT and is counted. UploadFile
// is raw for the same reason as ScoreClip: a chunk that does not parse is then not mistaken for
// the end of the stream.
using ScoringServiceBase = v1::ScoringService::WithRawCallbackMethod_ScoreClip<
    v1::ScoringService::WithRawCallbackMethod_ScorePair<
        v1::ScoringService::WithRawCallbackMethod_ScoreFiles<
            v1::ScoringService::WithRawCallbackMethod_ScoreLadder<
                v1::ScoringService::WithRawCallbackMethod_GetCapabilities<
                    v1::ScoringService::WithRawCallbackMethod_UploadFile<
                        v1::ScoringService::Service>>>>>>;

class ScoringServiceImpl final : public ScoringServiceBase {
 public:
  // `ctx` must outlive the service and every RPC it started (the server is shut down and the
  // worker pool drained first).
  explicit ScoringServiceImpl(ServiceContext* ctx) : ctx_(ctx) {}

  // Messages: ssimd.v1.ScoreClipRequest in, ssimd.v1.ScoreClipResponse out.
  grpc::ServerBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer>* ScoreClip(
      grpc::CallbackServerContext* call) override;
  // ssimd.v1.ScorePairRequest in, ssimd.v1.ScorePairResponse out.
  grpc::ServerUnaryReactor* ScorePair(grpc::CallbackServerContext* call,
                                      const grpc::ByteBuffer* request,
                                      grpc::ByteBuffer* response) override;
  // ssimd.v1.ScoreFilesRequest in, ssimd.v1.ScoreClipResponse out.
  grpc::ServerWriteReactor<grpc::ByteBuffer>* ScoreFiles(grpc::CallbackServerContext* call,
                                                         const grpc::ByteBuffer* request) override;
  // ssimd.v1.ScoreLadderRequest in, ssimd.v1.ScoreLadderResponse out.
  grpc::ServerWriteReactor<grpc::ByteBuffer>* ScoreLadder(grpc::CallbackServerContext* call,
                                                          const grpc::ByteBuffer* request) override;
  // ssimd.v1.UploadChunk messages in, ssimd.v1.UploadReceipt out.
  grpc::ServerReadReactor<grpc::ByteBuffer>* UploadFile(grpc::CallbackServerContext* call,
                                                        grpc::ByteBuffer* response) override;
  // ssimd.v1.GetCapabilitiesRequest in, ssimd.v1.Capabilities out.
  grpc::ServerUnaryReactor* GetCapabilities(grpc::CallbackServerContext* call,
                                            const grpc::ByteBuffer* request,
                                            grpc::ByteBuffer* response) override;

 private:
  // Takes a stream slot, or says why not (RESOURCE_EXHAUSTED when all are taken, UNAVAILABLE
  // while the server shuts down) with the refusal already recorded.
  std::optional<grpc::Status> RefuseStream(const char* method);
  // For streaming raw methods: parses `request` into `parsed`, or says why not (INVALID_ARGUMENT),
  // with the refusal already recorded.
  std::optional<grpc::Status> RefuseUnparseable(const char* method, const grpc::ByteBuffer& request,
                                                google::protobuf::Message* parsed);
  static grpc::Status ShuttingDown();
  // Checks a ScorePair request; OK with `settings` filled, or the status to answer with.
  absl::Status CheckPairRequest(const ReceivedPairMessage& message, ClipSettings& settings) const;
  void ScorePairOnWorker(grpc::CallbackServerContext* call, grpc::ServerUnaryReactor* reactor,
                         const ReceivedPairMessage& message, grpc::ByteBuffer* response,
                         const ClipSettings& settings, absl::Time submitted);
  void FinishUnary(grpc::ServerUnaryReactor* reactor, const char* method,
                   const grpc::Status& status);

  ServiceContext* const ctx_;
};

}  // namespace ssimd

#endif  // SSIMD_SERVER_SCORING_SERVICE_H_
