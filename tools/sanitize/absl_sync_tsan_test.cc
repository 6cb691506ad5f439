// Data handed between threads through Debian's absl synchronisation: correct code that
// ThreadSanitizer must accept once tools/sanitize/tsan_support.cc is linked in.
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "gtest/gtest.h"

namespace {

TEST(AbslSyncUnderTsan, MutexGuardsACounter) {
  absl::Mutex mu;
  int counter = 0;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 1000; ++i) {
        absl::MutexLock lock(&mu);
        ++counter;
      }
    });
  }
  for (std::thread& t : threads) t.join();
  absl::MutexLock lock(&mu);
  EXPECT_EQ(counter, 4000);
}

TEST(AbslSyncUnderTsan, ConditionAndCondVarHandOver) {
  absl::Mutex mu;
  absl::CondVar cv;
  int stage = 0;
  std::thread producer([&] {
    absl::MutexLock lock(&mu);
    stage = 1;
    cv.Signal();
    mu.Await(absl::Condition(+[](int* s) { return *s == 2; }, &stage));
    stage = 3;
  });
  {
    absl::MutexLock lock(&mu);
    while (stage != 1) cv.Wait(&mu);
    stage = 2;
  }
  producer.join();
  absl::MutexLock lock(&mu);
  EXPECT_EQ(stage, 3);
}

TEST(AbslSyncUnderTsan, NotificationPublishesData) {
  std::vector<int> data;
  absl::Notification ready;
  std::thread writer([&] {
    data.assign(100, 7);
    ready.Notify();
  });
  ready.WaitForNotification();
  EXPECT_EQ(data.size(), 100u);
  writer.join();
}

}  // namespace
