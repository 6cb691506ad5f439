#include "base/thread_pool.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <set>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "gtest/gtest.h"

namespace ssimd {
namespace {

using Sizing = ThreadPool::Sizing;

TEST(ThreadPoolSizing, StartedCountsEveryThread) {
  ThreadPool pool(3, Sizing::kStarted);
  EXPECT_EQ(pool.size(), 3);
  EXPECT_EQ(pool.threads(), 4);
}

TEST(ThreadPoolSizing, WithCallerCountsTheCaller) {
  for (int threads : {1, 2, 5}) {
    ThreadPool pool(threads, Sizing::kWithCaller);
    EXPECT_EQ(pool.threads(), threads);
    EXPECT_EQ(pool.size(), threads - 1);
  }
}

TEST(ThreadPoolSizing, ZeroMeansHardwareThreads) {
  const int hardware = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  ThreadPool started(0, Sizing::kStarted);
  EXPECT_EQ(started.size(), hardware);
  ThreadPool with_caller(0, Sizing::kWithCaller);
  EXPECT_EQ(with_caller.threads(), hardware);
}

TEST(ThreadPoolSubmit, RunsEveryTaskBeforeDestruction) {
  std::atomic<int> ran{0};
  {
    ThreadPool pool(3, Sizing::kStarted);
    for (int i = 0; i < 1000; ++i) pool.Submit([&ran] { ran.fetch_add(1); });
  }
  EXPECT_EQ(ran.load(), 1000);
}

TEST(ThreadPoolSubmit, RunsTasksInSubmissionOrder) {
  // Declared before the pool, which may still run tasks while it is destroyed.
  absl::Notification release;
  absl::Notification drained;
  absl::Mutex mu;
  std::vector<int> order;
  ThreadPool pool(1, Sizing::kStarted);
  // Hold the only thread so that every later task is queued before any of them runs.
  pool.Submit([&release] { release.WaitForNotification(); });
  for (int i = 0; i < 100; ++i) {
    pool.Submit([&mu, &order, i] {
      absl::MutexLock lock(&mu);
      order.push_back(i);
    });
  }
  EXPECT_GE(pool.queued(), 100);
  release.Notify();
  pool.Submit([&drained] { drained.Notify(); });
  drained.WaitForNotification();
  EXPECT_EQ(pool.queued(), 0);
  absl::MutexLock lock(&mu);
  ASSERT_EQ(order.size(), 100u);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(order[i], i);
}

TEST(ThreadPoolSubmit, UsesSeveralThreads) {
  absl::Mutex mu;
  std::set<std::thread::id> ids;
  int started = 0;
  ThreadPool pool(2, Sizing::kStarted);
  // Each task waits for the other, which only finishes if they run on two threads at once.
  for (int i = 0; i < 2; ++i) {
    pool.Submit([&] {
      absl::MutexLock lock(&mu);
      ids.insert(std::this_thread::get_id());
      ++started;
      mu.Await(absl::Condition(+[](int* n) { return *n == 2; }, &started));
    });
  }
  absl::MutexLock lock(&mu);
  mu.Await(absl::Condition(+[](int* n) { return *n == 2; }, &started));
  EXPECT_EQ(ids.size(), 2u);
}

TEST(ThreadPoolSubmit, WithoutThreadsTasksRunInTheDestructor) {
  int ran = 0;
  {
    ThreadPool pool(1, Sizing::kWithCaller);
    for (int i = 0; i < 5; ++i) pool.Submit([&ran] { ++ran; });
    EXPECT_EQ(pool.queued(), 5);
    EXPECT_EQ(ran, 0);
  }
  EXPECT_EQ(ran, 5);
}

TEST(ThreadPoolParallelFor, CoversEveryIndexOnce) {
  for (int threads : {1, 2, 5}) {
    ThreadPool pool(threads, Sizing::kWithCaller);
    for (int64_t n : {0, 1, 7, 1000}) {
      for (int64_t grain : {1, 3, 64, 5000}) {
        std::vector<std::atomic<int>> hits(static_cast<size_t>(n));
        pool.ParallelFor(n, grain, [&](int64_t begin, int64_t end) {
          EXPECT_LE(end - begin, grain);
          for (int64_t i = begin; i < end; ++i) hits[i].fetch_add(1);
        });
        for (int64_t i = 0; i < n; ++i) {
          ASSERT_EQ(hits[i].load(), 1) << n << " " << grain << " " << i;
        }
      }
    }
  }
}

TEST(ThreadPoolParallelFor, ServesConcurrentCallers) {
  ThreadPool pool(3, Sizing::kWithCaller);
  constexpr int kCallers = 6;
  std::vector<int64_t> sums(kCallers, 0);
  std::vector<std::thread> callers;
  for (int c = 0; c < kCallers; ++c) {
    callers.emplace_back([&, c] {
      for (int round = 0; round < 50; ++round) {
        std::vector<int64_t> partial(100, 0);
        pool.ParallelFor(100, 7, [&](int64_t begin, int64_t end) {
          for (int64_t i = begin; i < end; ++i) partial[i] = i * (c + 1);
        });
        for (int64_t v : partial) sums[c] += v;
      }
    });
  }
  for (std::thread& t : callers) t.join();
  for (int c = 0; c < kCallers; ++c) EXPECT_EQ(sums[c], 50 * 4950 * (c + 1));
}

// The caller works on its own loop, so a ParallelFor finishes even while every started thread is
// held by a task (as when one pool served both uses).
TEST(ThreadPoolParallelFor, FinishesWhileEveryThreadIsBusy) {
  absl::Notification release;
  ThreadPool pool(2, Sizing::kStarted);
  for (int i = 0; i < pool.size(); ++i) pool.Submit([&release] { release.WaitForNotification(); });
  std::vector<int64_t> out(50, 0);
  pool.ParallelFor(50, 4, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) out[i] = i;
  });
  for (int64_t i = 0; i < 50; ++i) EXPECT_EQ(out[i], i);
  release.Notify();
}

// A Submit task may itself call ParallelFor, as a scoring task does on the CPU engine's pool.
TEST(ThreadPoolParallelFor, RunsInsideASubmittedTask) {
  std::atomic<int64_t> sum{0};
  {
    ThreadPool pool(2, Sizing::kStarted);
    for (int t = 0; t < 4; ++t) {
      pool.Submit([&] {
        pool.ParallelFor(40, 3, [&](int64_t begin, int64_t end) {
          for (int64_t i = begin; i < end; ++i) sum.fetch_add(i);
        });
      });
    }
  }
  EXPECT_EQ(sum.load(), 4 * 780);
}

}  // namespace
}  // namespace ssimd
