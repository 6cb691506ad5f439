// A fixed set of worker threads that runs index ranges in parallel. Used only for work whose
// result cannot depend on which thread runs which range (each index writes its own outputs), so
// frame scores are identical whatever the thread count.
#ifndef SSIMD_ENGINE_CPU_THREAD_POOL_H_
#define SSIMD_ENGINE_CPU_THREAD_POOL_H_

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace ssimd {

class ThreadPool {
 public:
  // `threads` workers in all, the calling thread included (so threads - 1 are started);
  // 0 means std::thread::hardware_concurrency().
  explicit ThreadPool(int threads);
  ~ThreadPool();

  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int threads() const { return threads_; }

  // Calls fn(begin, end) on consecutive ranges covering [0, n), each at most `grain` long, and
  // returns once all have run. The caller works too. Safe to call from many threads at once:
  // concurrent calls share the workers.
  void ParallelFor(int64_t n, int64_t grain, const std::function<void(int64_t, int64_t)>& fn);

 private:
  struct Job;

  void WorkerLoop();
  static void RunChunks(Job& job);

  int threads_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::shared_ptr<Job>> queue_;
  bool stopping_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace ssimd

#endif  // SSIMD_ENGINE_CPU_THREAD_POOL_H_
