// ScoreClip: a bidirectional stream whose first message is the clip's config and whose next ones
// are frame pairs. Registered as a raw method: each message arrives as the grpc::ByteBuffer it was
// received in and is read by wire_request.h, so a frame's planes go on to the engine as views of
// the received slices (the GPU copies them once, into pinned staging), and a message that fails
// to parse is told apart from the end of the stream (gRPC's typed reactor reports both as a failed
// read). Validates each message and hands frames to a StreamPipeline.
#ifndef SSIMD_SERVER_CLIP_REACTOR_H_
#define SSIMD_SERVER_CLIP_REACTOR_H_

#include "grpcpp/grpcpp.h"
#include "proto/ssimd/v1/ssimd.pb.h"
#include "server/service_context.h"
#include "server/stream_pipeline.h"
#include "server/byte_buffer_request.h"

namespace ssimd {

class ClipReactor final : public grpc::ServerBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer>,
                          private StreamPipeline::Host {
 public:
  // Starts reading at once. Deletes itself when the RPC is over.
  ClipReactor(ServiceContext* ctx, grpc::CallbackServerContext* call);

  void OnReadDone(bool ok) override;
  void OnWriteDone(bool ok) override { pipeline_.WriteDone(ok); }
  void OnCancel() override { pipeline_.Cancelled(); }
  void OnDone() override { pipeline_.Done(); }

 private:
  void HostFetch() override { StartRead(&read_buffer_); }
  void HostWrite(const v1::ScoreClipResponse* response) override;
  void HostFinish(grpc::Status status) override { Finish(std::move(status)); }
  void HostDestroy() override { delete this; }
  void HostCancel() override { call_->TryCancel(); }
  bool HostFetchWaitsOnClient() const override { return true; }

  void OnConfig(const v1::ClipConfig& config);
  void OnFrame(uint64_t index, ReceivedPlanes planes);

  ServiceContext* const ctx_;
  grpc::CallbackServerContext* const call_;
  grpc::ByteBuffer read_buffer_;
  grpc::ByteBuffer write_buffer_;  // one write at a time (the pipeline's rule)
  StreamPipeline pipeline_;
};

}  // namespace ssimd

#endif  // SSIMD_SERVER_CLIP_REACTOR_H_
