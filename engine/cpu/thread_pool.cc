#include "engine/cpu/thread_pool.h"

#include <algorithm>
#include <atomic>

namespace ssimd {

struct ThreadPool::Job {
  const std::function<void(int64_t, int64_t)>* fn;
  int64_t n;
  int64_t grain;
  int64_t chunks;
  std::atomic<int64_t> next{0};
  std::atomic<int64_t> finished{0};
  std::mutex mutex;
  std::condition_variable done;
};

ThreadPool::ThreadPool(int threads) {
  if (threads <= 0) threads = static_cast<int>(std::thread::hardware_concurrency());
  threads_ = std::max(1, threads);
  workers_.reserve(threads_ - 1);
  for (int i = 1; i < threads_; ++i) workers_.emplace_back([this] { WorkerLoop(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (std::thread& t : workers_) t.join();
}

void ThreadPool::RunChunks(Job& job) {
  for (;;) {
    const int64_t chunk = job.next.fetch_add(1, std::memory_order_relaxed);
    if (chunk >= job.chunks) return;
    const int64_t begin = chunk * job.grain;
    const int64_t end = std::min(job.n, begin + job.grain);
    (*job.fn)(begin, end);
    if (job.finished.fetch_add(1, std::memory_order_acq_rel) + 1 == job.chunks) {
      std::lock_guard<std::mutex> lock(job.mutex);
      job.done.notify_all();
    }
  }
}

void ThreadPool::WorkerLoop() {
  for (;;) {
    std::shared_ptr<Job> job;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping, nothing left
      job = queue_.front();
      // Every chunk handed out: later workers need not see this job again.
      if (job->next.load(std::memory_order_relaxed) >= job->chunks) {
        queue_.pop_front();
        continue;
      }
    }
    RunChunks(*job);
    std::lock_guard<std::mutex> lock(mutex_);
    if (!queue_.empty() && queue_.front() == job) queue_.pop_front();
  }
}

void ThreadPool::ParallelFor(int64_t n, int64_t grain,
                             const std::function<void(int64_t, int64_t)>& fn) {
  if (n <= 0) return;
  grain = std::max<int64_t>(1, grain);
  const int64_t chunks = (n + grain - 1) / grain;
  if (threads_ == 1 || chunks == 1) {
    for (int64_t begin = 0; begin < n; begin += grain) fn(begin, std::min(n, begin + grain));
    return;
  }
  auto job = std::make_shared<Job>();
  job->fn = &fn;
  job->n = n;
  job->grain = grain;
  job->chunks = chunks;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    queue_.push_back(job);
  }
  wake_.notify_all();
  RunChunks(*job);
  std::unique_lock<std::mutex> lock(job->mutex);
  job->done.wait(lock, [&] { return job->finished.load(std::memory_order_acquire) == job->chunks; });
  // The job may still sit in the queue with every chunk handed out; workers drop it on sight.
}

}  // namespace ssimd
