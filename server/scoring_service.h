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

namespace ssimd {

class ScoringServiceImpl final : public v1::ScoringService::CallbackService {
 public:
  // `ctx` must outlive the service and every RPC it started (the server is shut down and the
  // worker pool drained first).
  explicit ScoringServiceImpl(ServiceContext* ctx) : ctx_(ctx) {}

  grpc::ServerBidiReactor<v1::ScoreClipRequest, v1::ScoreClipResponse>* ScoreClip(
      grpc::CallbackServerContext* call) override;
  grpc::ServerUnaryReactor* ScorePair(grpc::CallbackServerContext* call,
                                      const v1::ScorePairRequest* request,
                                      v1::ScorePairResponse* response) override;
  grpc::ServerWriteReactor<v1::ScoreClipResponse>* ScoreFiles(
      grpc::CallbackServerContext* call, const v1::ScoreFilesRequest* request) override;
  grpc::ServerUnaryReactor* GetCapabilities(grpc::CallbackServerContext* call,
                                            const v1::GetCapabilitiesRequest* request,
                                            v1::Capabilities* response) override;

 private:
  // Takes a stream slot, or says why not (RESOURCE_EXHAUSTED when all are taken, UNAVAILABLE
  // while the server shuts down) with the refusal already recorded.
  std::optional<grpc::Status> RefuseStream(const char* method);
  static grpc::Status ShuttingDown();
  void ScorePairOnWorker(grpc::CallbackServerContext* call, grpc::ServerUnaryReactor* reactor,
                         const v1::ScorePairRequest* request, v1::ScorePairResponse* response,
                         const ClipSettings& settings, absl::Time submitted);
  void FinishUnary(grpc::ServerUnaryReactor* reactor, const char* method,
                   const grpc::Status& status);

  ServiceContext* const ctx_;
};

}  // namespace ssimd

#endif  // SSIMD_SERVER_SCORING_SERVICE_H_
