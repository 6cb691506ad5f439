#include "base/thread_pool.h"

#include <algorithm>
#include <atomic>
#include <memory>
#include <utility>

#include "absl/synchronization/blocking_counter.h"

namespace ssimd {
namespace {

int HardwareThreads() {
  return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

int ThreadsToStart(int threads, ThreadPool::Sizing sizing) {
  if (threads < 1) threads = HardwareThreads();
  return sizing == ThreadPool::Sizing::kWithCaller ? threads - 1 : threads;
}

// One ParallelFor call. Shared between the caller and the helper tasks it queues, since a helper
// may only get a thread after the caller has returned; it then finds no range left and leaves
// without touching `fn`.
struct Loop {
  Loop(const std::function<void(int64_t, int64_t)>& fn, int64_t n, int64_t grain, int64_t chunks)
      : fn(fn), n(n), grain(grain), chunks(chunks), finished(static_cast<int>(chunks)) {}

  // Runs ranges until none is left to hand out.
  void Work() {
    for (;;) {
      const int64_t chunk = next.fetch_add(1, std::memory_order_relaxed);
      if (chunk >= chunks) return;
      const int64_t begin = chunk * grain;
      fn(begin, std::min(n, begin + grain));
      finished.DecrementCount();
    }
  }

  const std::function<void(int64_t, int64_t)>& fn;
  const int64_t n;
  const int64_t grain;
  const int64_t chunks;
  std::atomic<int64_t> next{0};
  absl::BlockingCounter finished;
};

}  // namespace

ThreadPool::ThreadPool(int threads, Sizing sizing) {
  const int started = ThreadsToStart(threads, sizing);
  threads_.reserve(started);
  for (int i = 0; i < started; ++i) threads_.emplace_back([this] { Run(); });
}

ThreadPool::~ThreadPool() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  for (std::thread& t : threads_) t.join();
  // Threads leave only once the queue is empty, so tasks remain only where none was started.
  std::deque<std::function<void()>> left;
  {
    absl::MutexLock lock(&mu_);
    left.swap(tasks_);
  }
  for (std::function<void()>& task : left) task();
}

void ThreadPool::Submit(std::function<void()> task) {
  absl::MutexLock lock(&mu_);
  tasks_.push_back(std::move(task));
}

int ThreadPool::queued() const {
  absl::MutexLock lock(&mu_);
  return static_cast<int>(tasks_.size());
}

void ThreadPool::Run() {
  for (;;) {
    std::function<void()> task;
    {
      absl::MutexLock lock(&mu_);
      mu_.Await(absl::Condition(
          +[](ThreadPool* pool) ABSL_EXCLUSIVE_LOCKS_REQUIRED(pool->mu_) {
            return pool->stopping_ || !pool->tasks_.empty();
          },
          this));
      if (tasks_.empty()) return;  // stopping, and nothing left to run
      task = std::move(tasks_.front());
      tasks_.pop_front();
    }
    task();
  }
}

void ThreadPool::ParallelFor(int64_t n, int64_t grain,
                             const std::function<void(int64_t, int64_t)>& fn) {
  if (n <= 0) return;
  grain = std::max<int64_t>(1, grain);
  const int64_t chunks = (n + grain - 1) / grain;
  if (threads_.empty() || chunks == 1) {
    for (int64_t begin = 0; begin < n; begin += grain) fn(begin, std::min(n, begin + grain));
    return;
  }
  auto loop = std::make_shared<Loop>(fn, n, grain, chunks);
  // One helper per thread that could usefully join; the caller takes a range too.
  const int64_t helpers = std::min<int64_t>(chunks - 1, size());
  {
    absl::MutexLock lock(&mu_);
    for (int64_t i = 0; i < helpers; ++i) tasks_.push_back([loop] { loop->Work(); });
  }
  loop->Work();
  loop->finished.Wait();
}

}  // namespace ssimd
