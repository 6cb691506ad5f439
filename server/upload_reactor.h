// UploadFile: a client stream of UploadChunks stored in the upload spool (server/upload_spool.h)
// and answered with an UploadReceipt once the client half-closes. Registered as a raw method, as
// ScoreClip is, so that a chunk that does not parse is told apart from the end of the stream.
//
// The upload takes a slot of --max_concurrent_streams and is watched by the stream registry like
// a clip stream: a client that sends no chunk for --stream_idle_timeout gets DEADLINE_EXCEEDED.
// Whatever ends an upload before its receipt (a limit, a bad chunk, the idle timeout, a cancel, a
// shutdown) removes its partial file; where the server ends it, before the client hears why.
//
// Threading: chunks are read one at a time; each is written to disk on the worker pool (a write
// may block on a slow disk, which no gRPC thread should wait for), and the next read starts once
// it is stored, so HTTP/2 flow control holds a fast client back instead of server memory.
#ifndef SSIMD_SERVER_UPLOAD_REACTOR_H_
#define SSIMD_SERVER_UPLOAD_REACTOR_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "grpcpp/grpcpp.h"
#include "server/service_context.h"
#include "server/stream_registry.h"
#include "server/upload_spool.h"

namespace ssimd {

class UploadReactor final : public grpc::ServerReadReactor<grpc::ByteBuffer>,
                            public RegisteredStream {
 public:
  // `ctx->uploads` must be set; `response` is where the receipt is serialized. Starts reading at
  // once and deletes itself when the RPC is over.
  UploadReactor(ServiceContext* ctx, grpc::CallbackServerContext* call,
                grpc::ByteBuffer* response);
  ~UploadReactor() override;

  void OnReadDone(bool ok) override;
  void OnCancel() override;
  void OnDone() override;

  // RegisteredStream: the idle watchdog and the end of a shutdown's grace period.
  bool TryHold() override;
  void Release() override;
  absl::Duration WaitingOnClient(absl::Time now) const override;
  void Abort(const absl::Status& status) override;
  void AbortIdle(absl::Duration waited, absl::Duration timeout) override;

 private:
  // What an event leads to, done after the mutex is released (gRPC may run a reaction inline
  // from inside a Start* call).
  struct Actions {
    bool read = false;
    std::optional<grpc::Status> finish;
    std::unique_ptr<UploadWriter> discard;
    bool destroy = false;
  };

  // Reads the chunk just received; OK with `data` set, or why the upload must end.
  absl::Status TakeChunk(std::string* data) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // On the worker pool, one at a time.
  void Store(std::string data);
  void CommitUpload();

  void FailLocked(const absl::Status& status) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status CancellationLocked() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  Actions ReadLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  Actions PlanLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Must be the last use of `this` by the calling thread.
  void Execute(Actions actions);
  void Conclude(const grpc::Status& status, int64_t bytes);

  ServiceContext* const ctx_;
  grpc::CallbackServerContext* const call_;
  grpc::ByteBuffer* const response_;
  const std::string peer_;
  const absl::Time deadline_;
  const absl::Time started_;
  grpc::ByteBuffer read_buffer_;  // one read at a time

  // Used by the pool task while `storing_`, else only under mu_ (or once the call is finished).
  std::unique_ptr<UploadWriter> writer_;

  mutable absl::Mutex mu_;
  std::string file_name_ ABSL_GUARDED_BY(mu_);  // empty until the first chunk
  int64_t bytes_received_ ABSL_GUARDED_BY(mu_) = 0;
  bool reading_ ABSL_GUARDED_BY(mu_) = false;
  absl::Time read_started_ ABSL_GUARDED_BY(mu_);
  // A read planned whose StartRead has not returned yet: Finish waits for it, so that no Start*
  // call can follow Finish.
  int reads_starting_ ABSL_GUARDED_BY(mu_) = 0;
  bool storing_ ABSL_GUARDED_BY(mu_) = false;  // a pool task holds writer_
  std::optional<absl::Status> failure_ ABSL_GUARDED_BY(mu_);
  std::optional<UploadReceiptInfo> receipt_ ABSL_GUARDED_BY(mu_);
  bool finish_called_ ABSL_GUARDED_BY(mu_) = false;
  bool done_ ABSL_GUARDED_BY(mu_) = false;
  int holds_ ABSL_GUARDED_BY(mu_) = 0;
  bool destroyed_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace ssimd

#endif  // SSIMD_SERVER_UPLOAD_REACTOR_H_
