#include "server/worker_pool.h"

#include <atomic>
#include <set>
#include <thread>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "gtest/gtest.h"

namespace ssimd {
namespace {

TEST(WorkerPoolTest, RunsEveryTaskBeforeDestruction) {
  std::atomic<int> ran{0};
  {
    WorkerPool pool(3);
    EXPECT_EQ(pool.size(), 3);
    for (int i = 0; i < 1000; ++i) pool.Submit([&ran] { ran.fetch_add(1); });
  }
  EXPECT_EQ(ran.load(), 1000);
}

TEST(WorkerPoolTest, UsesSeveralThreads) {
  WorkerPool pool(2);
  absl::Mutex mu;
  std::set<std::thread::id> ids;
  absl::Notification both_started;
  int started = 0;
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

TEST(WorkerPoolTest, ZeroMeansHardwareThreads) {
  WorkerPool pool(0);
  EXPECT_GE(pool.size(), 1);
}

}  // namespace
}  // namespace ssimd
