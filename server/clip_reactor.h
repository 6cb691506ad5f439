// ScoreClip: a bidirectional stream whose first message is the clip's config and whose next ones
// are frame pairs. Validates each message and hands frames to a StreamPipeline.
#ifndef SSIMD_SERVER_CLIP_REACTOR_H_
#define SSIMD_SERVER_CLIP_REACTOR_H_

#include "grpcpp/grpcpp.h"
#include "proto/ssimd/v1/ssimd.pb.h"
#include "server/service_context.h"
#include "server/stream_pipeline.h"

namespace ssimd {

class ClipReactor final
    : public grpc::ServerBidiReactor<v1::ScoreClipRequest, v1::ScoreClipResponse>,
      private StreamPipeline::Host {
 public:
  // Starts reading at once. Deletes itself when the RPC is over.
  ClipReactor(ServiceContext* ctx, grpc::CallbackServerContext* call);

  void OnReadDone(bool ok) override;
  void OnWriteDone(bool ok) override { pipeline_.WriteDone(ok); }
  void OnCancel() override { pipeline_.Cancelled(); }
  void OnDone() override { pipeline_.Done(); }

 private:
  void HostFetch() override { StartRead(&request_); }
  void HostWrite(const v1::ScoreClipResponse* response) override { StartWrite(response); }
  void HostFinish(grpc::Status status) override { Finish(std::move(status)); }
  void HostDestroy() override { delete this; }

  void OnConfig();
  void OnFrame();

  ServiceContext* const ctx_;
  v1::ScoreClipRequest request_;
  StreamPipeline pipeline_;
};

}  // namespace ssimd

#endif  // SSIMD_SERVER_CLIP_REACTOR_H_
