#include "engine/gpu/slot_pool.h"

#include <atomic>
#include <thread>
#include <vector>

#include "absl/synchronization/notification.h"
#include "gtest/gtest.h"

namespace ssimd {
namespace {

TEST(SlotPoolTest, LeaseReturnsItsSlotWhenDestroyed) {
  SlotPool pool({2});
  {
    absl::StatusOr<SlotPool::Lease> a = pool.Acquire();
    absl::StatusOr<SlotPool::Lease> b = pool.Acquire();
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_NE(a->slot(), b->slot());
    EXPECT_EQ(pool.SlotsInUse(0), 2);
  }
  EXPECT_EQ(pool.SlotsInUse(0), 0);
}

TEST(SlotPoolTest, LeaseReturnsOnAnEarlyErrorReturn) {
  SlotPool pool({1});
  auto failing_frame = [&]() -> absl::Status {
    absl::StatusOr<SlotPool::Lease> lease = pool.Acquire();
    if (!lease.ok()) return lease.status();
    return absl::InternalError("kernel failed");  // the lease goes out of scope here
  };
  EXPECT_FALSE(failing_frame().ok());
  EXPECT_EQ(pool.SlotsInUse(0), 0);
  EXPECT_TRUE(pool.Acquire().ok());
}

TEST(SlotPoolTest, MovedLeaseReturnsOnce) {
  SlotPool pool({1});
  absl::StatusOr<SlotPool::Lease> lease = pool.Acquire();
  ASSERT_TRUE(lease.ok());
  SlotPool::Lease moved = std::move(*lease);
  EXPECT_EQ(pool.SlotsInUse(0), 1);
  moved.Release();
  moved.Release();
  EXPECT_EQ(pool.SlotsInUse(0), 0);
}

TEST(SlotPoolTest, SpreadsLeasesOverEntries) {
  SlotPool pool({2, 2});
  absl::StatusOr<SlotPool::Lease> a = pool.Acquire();
  absl::StatusOr<SlotPool::Lease> b = pool.Acquire();
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_NE(a->entry(), b->entry());
}

TEST(SlotPoolTest, LostEntryIsSkippedAndTheLastLossFailsWaiters) {
  SlotPool pool({1, 1});
  pool.MarkLost(0, "illegal address");
  EXPECT_TRUE(pool.IsLost(0));
  EXPECT_EQ(pool.LostReason(0), "illegal address");
  absl::StatusOr<SlotPool::Lease> lease = pool.Acquire();
  ASSERT_TRUE(lease.ok());
  EXPECT_EQ(lease->entry(), 1);

  // A waiter blocked on the busy entry wakes up with UNAVAILABLE when that entry is lost too.
  std::atomic<bool> failed{false};
  std::thread waiter([&] {
    absl::StatusOr<SlotPool::Lease> next = pool.Acquire();
    failed = !next.ok() && next.status().code() == absl::StatusCode::kUnavailable;
  });
  pool.MarkLost(1, "device removed");
  waiter.join();
  EXPECT_TRUE(failed);
  EXPECT_FALSE(pool.AnyUsable());
  lease->Release();
  EXPECT_EQ(pool.SlotsInUse(1), 0);
}

TEST(SlotPoolTest, ManyThreadsNeverShareASlot) {
  constexpr int kSlots = 3;
  SlotPool pool({kSlots, kSlots});
  std::atomic<int> holders[2][kSlots] = {};
  std::atomic<int> overlaps{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 16; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 200; ++i) {
        absl::StatusOr<SlotPool::Lease> lease = pool.Acquire();
        ASSERT_TRUE(lease.ok());
        if (holders[lease->entry()][lease->slot()].fetch_add(1) != 0) ++overlaps;
        std::this_thread::yield();
        holders[lease->entry()][lease->slot()].fetch_sub(1);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(overlaps, 0);
  EXPECT_EQ(pool.SlotsInUse(0) + pool.SlotsInUse(1), 0);
}

}  // namespace
}  // namespace ssimd
