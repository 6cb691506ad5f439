// A fixed set of threads that run scoring work, so that gRPC's own threads only move messages and
// never wait on a frame being scored.
#ifndef SSIMD_SERVER_WORKER_POOL_H_
#define SSIMD_SERVER_WORKER_POOL_H_

#include <deque>
#include <functional>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

namespace ssimd {

class WorkerPool {
 public:
  // `threads` < 1 means one per hardware thread.
  explicit WorkerPool(int threads);
  // Runs every task already submitted, then joins the threads.
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // Tasks run in submission order (FIFO) on any thread. The queue is not bounded here: callers
  // bound their own work (frames in flight per stream, streams per server).
  void Submit(std::function<void()> task);

  int size() const { return static_cast<int>(threads_.size()); }
  // Tasks waiting for a thread (for metrics and tests).
  int queued() const;

 private:
  void Run();

  mutable absl::Mutex mu_;
  std::deque<std::function<void()>> tasks_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<std::thread> threads_;
};

}  // namespace ssimd

#endif  // SSIMD_SERVER_WORKER_POOL_H_
