// The open streams of one server (ScoreClip, ScoreFiles, ScoreLadder, UploadFile), for the two
// things that act on streams from outside their own events: the idle watchdog (a stream whose client neither sends nor reads for
// --stream_idle_timeout is ended with DEADLINE_EXCEEDED) and the end of a shutdown's grace period
// (streams still open are ended with UNAVAILABLE, so that the client, the log and the metrics all
// see the same status).
#ifndef SSIMD_SERVER_STREAM_REGISTRY_H_
#define SSIMD_SERVER_STREAM_REGISTRY_H_

#include <functional>
#include <set>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"

namespace ssimd {

// What the registry needs of a stream. Implemented by StreamPipeline, LadderReactor and
// UploadReactor.
class RegisteredStream {
 public:
  virtual ~RegisteredStream() = default;
  // Keeps the stream alive until Release; false when it is already finishing (then no Release).
  virtual bool TryHold() = 0;
  virtual void Release() = 0;
  // How long the stream has waited on its client (for a message, or for a result to be taken);
  // zero while the server itself is working on the stream.
  virtual absl::Duration WaitingOnClient(absl::Time now) const = 0;
  // Ends the stream with `status` unless it already ended.
  virtual void Abort(const absl::Status& status) = 0;
  // Ends the stream with DEADLINE_EXCEEDED, saying what it waited for.
  virtual void AbortIdle(absl::Duration waited, absl::Duration timeout) = 0;
};

class StreamRegistry {
 public:
  StreamRegistry() = default;
  ~StreamRegistry();
  StreamRegistry(const StreamRegistry&) = delete;
  StreamRegistry& operator=(const StreamRegistry&) = delete;

  // A stream registers at birth and unregisters in its destructor.
  void Add(RegisteredStream* stream);
  void Remove(RegisteredStream* stream);

  // Calls `fn` for every open stream that could be held, outside the registry's lock (so `fn` may
  // end the stream), each stream held for the duration of its call.
  void ForEach(const std::function<void(RegisteredStream&)>& fn);

  // Starts a thread that looks every `period` for streams that waited on their client longer than
  // `timeout` and ends them (AbortIdle). A zero timeout starts nothing.
  void StartWatchdog(absl::Duration timeout, absl::Duration period);
  void StopWatchdog();

  int size() const;

 private:
  void Watch(absl::Duration timeout, absl::Duration period);

  mutable absl::Mutex mu_;
  std::set<RegisteredStream*> streams_ ABSL_GUARDED_BY(mu_);
  absl::Notification stop_;
  std::thread watchdog_;
};

}  // namespace ssimd

#endif  // SSIMD_SERVER_STREAM_REGISTRY_H_
