// A fixed set of threads for two kinds of work: tasks handed over with Submit (the server scores
// frames on them, so that gRPC's own threads only move messages and never wait on a frame), and
// index ranges split with ParallelFor (the CPU engine's per-pixel work within one frame).
//
// The server and the CPU engine each keep their own instance rather than share one. A scoring task
// may run for a whole frame and wait on a device, and it is from such a task that the CPU engine
// calls ParallelFor: on a shared pool a frame's ranges would queue behind other frames' tasks and
// run on the caller alone, and each frame's tasks would wait behind ranges of frames already
// running. Separate instances also keep the two settings users see independent: --workers counts
// frames scored at once, --cpu_threads the threads that share one frame.
#ifndef SSIMD_BASE_THREAD_POOL_H_
#define SSIMD_BASE_THREAD_POOL_H_

#include <cstdint>
#include <deque>
#include <functional>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

namespace ssimd {

class ThreadPool {
 public:
  // How the constructor's `threads` is read. The two users count differently, and each count is
  // what a flag or option has always meant, so the pool takes either rather than have callers
  // convert (and re-derive "0 means automatic").
  enum class Sizing {
    // `threads` threads are started and run Submit's tasks; < 1 means one per hardware thread.
    kStarted,
    // `threads` work on each ParallelFor, the calling thread included, so threads - 1 are started
    // (none for 1: loops run on the caller); < 1 means one per hardware thread in all.
    kWithCaller,
  };

  ThreadPool(int threads, Sizing sizing);
  // Runs every task already submitted, then joins the threads.
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  // Threads started (for Submit's tasks).
  int size() const { return static_cast<int>(threads_.size()); }
  // Threads that can work on one ParallelFor: those started, plus the caller.
  int threads() const { return size() + 1; }

  // Tasks run in submission order (FIFO) on any started thread. The queue is not bounded here:
  // callers bound their own work (frames in flight per stream, streams per server). With no
  // thread started (kWithCaller, 1) tasks only run in the destructor.
  void Submit(std::function<void()> task);
  // Tasks waiting for a thread (for metrics and tests); a running ParallelFor may count here too.
  int queued() const;

  // Calls fn(begin, end) on consecutive ranges covering [0, n), each at most `grain` long, and
  // returns once all have run. The caller works too, so a call always finishes even when every
  // started thread is busy. Safe to call from many threads at once: concurrent calls share the
  // threads. Ranges go to whichever thread is free, so fn's effect must not depend on which
  // thread runs which range (each index writing its own outputs keeps scores the same whatever
  // the thread count).
  void ParallelFor(int64_t n, int64_t grain, const std::function<void(int64_t, int64_t)>& fn);

 private:
  void Run();

  mutable absl::Mutex mu_;
  std::deque<std::function<void()>> tasks_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<std::thread> threads_;
};

}  // namespace ssimd

#endif  // SSIMD_BASE_THREAD_POOL_H_
