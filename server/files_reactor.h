// ScoreFiles: the server reads a reference and a distorted file, each a path below its files root,
// an upload or an allowed URL (server/input_resolver.h), as raw .yuv, .y4m, or anything FFmpeg
// decodes (a rendition of another size upscaled to the reference's), and streams results as
// ScoreClip does. Opening (a URL's fetch and the wait for decoded-picture memory included) runs
// on a thread of its own and reading on the worker pool, one step at a time, so no gRPC thread
// waits on the disk, the network, memory or a decoder.
#ifndef SSIMD_SERVER_FILES_REACTOR_H_
#define SSIMD_SERVER_FILES_REACTOR_H_

#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "engine/media/frame_pairing.h"
#include "engine/media/luma_buffer_pool.h"
#include "engine/media/video_input.h"
#include "grpcpp/grpcpp.h"
#include "proto/ssimd/v1/ssimd.pb.h"
#include "server/request_parsing.h"
#include "server/service_context.h"
#include "server/stream_pipeline.h"

namespace ssimd {

class FilesReactor final : public grpc::ServerWriteReactor<grpc::ByteBuffer>,
                           private StreamPipeline::Host {
 public:
  // Copies what it needs from `request`. Deletes itself when the RPC is over.
  FilesReactor(ServiceContext* ctx, grpc::CallbackServerContext* call,
               const v1::ScoreFilesRequest& request);

  void OnWriteDone(bool ok) override { pipeline_.WriteDone(ok); }
  void OnCancel() override { pipeline_.Cancelled(); }
  void OnDone() override { pipeline_.Done(); }

 private:
  void HostFetch() override;
  void HostWrite(const v1::ScoreClipResponse* response) override;
  void HostFinish(grpc::Status status) override { Finish(std::move(status)); }
  void HostDestroy() override { delete this; }
  void HostCancel() override { call_->TryCancel(); }
  bool HostFetchWaitsOnClient() const override { return false; }

  // Open on a thread of its own, ReadNext on the worker pool; never two at once (the pipeline
  // fetches one thing at a time).
  void Open();
  void ReadNext();

  // The steps of Open, in order.
  absl::StatusOr<ClipSettings> OpenInputs();
  absl::StatusOr<std::optional<Geometry>> RequestedGeometry() const;
  absl::Status CheckRawFilesHaveGeometry(const std::optional<Geometry>& geometry) const;
  absl::Status SkipToStart();
  // Past the start offsets: both inputs from now on read ahead, into recycled buffers.
  void ReadAhead();

  ServiceContext* const ctx_;
  grpc::CallbackServerContext* const call_;
  grpc::ByteBuffer write_buffer_;  // one write at a time (the pipeline's rule)
  const v1::ScoreFilesRequest request_;
  // What the readers call the inputs (server/input_resolver.h): a URL without its query.
  const std::string reference_name_;
  const std::string distorted_name_;
  // Decoded-picture memory the inputs reserved (docs/adr/0084); they hold it until destroyed.
  int64_t reserved_by_call_ = 0;
  std::unique_ptr<VideoInput> reference_;
  std::unique_ptr<VideoInput> distorted_;
  std::shared_ptr<LumaBufferPool> buffers_;  // shared with the frames being scored
  std::unique_ptr<FramePairer> pairer_;
  FeatureSet features_;  // the request's, for the decode and scale stages
  StreamPipeline pipeline_;
};

}  // namespace ssimd

#endif  // SSIMD_SERVER_FILES_REACTOR_H_
