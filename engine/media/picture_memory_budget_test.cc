#include "engine/media/picture_memory_budget.h"

#include <atomic>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace ssimd {
namespace {

using ::testing::HasSubstr;

constexpr int64_t kMiB = int64_t{1} << 20;

PictureMemoryBudget::Options Budget(int64_t capacity, absl::Duration wait = absl::Seconds(5)) {
  PictureMemoryBudget::Options options;
  options.capacity_bytes = capacity;
  options.wait = wait;
  options.capacity_name = "--decoded_memory_budget";
  options.wait_name = "--decoded_memory_wait";
  return options;
}

PictureMemoryBudget::Request Bytes(int64_t bytes, int64_t held_by_call = 0) {
  PictureMemoryBudget::Request request;
  request.bytes = bytes;
  request.held_by_call = held_by_call;
  return request;
}

TEST(BytesTextTest, PicksAReadableUnit) {
  EXPECT_EQ(BytesText(512), "512 bytes");
  EXPECT_EQ(BytesText(64 * 1024), "64.0 KiB");
  EXPECT_EQ(BytesText(3 * kMiB / 2), "1.5 MiB");
  EXPECT_EQ(BytesText(int64_t{4} << 30), "4.0 GiB");
}

TEST(PictureMemoryBudgetTest, ReservationsAddUpAndAreGivenBackWhenDestroyed) {
  PictureMemoryBudget budget(Budget(100 * kMiB));
  {
    auto a = budget.Reserve(Bytes(30 * kMiB));
    ASSERT_TRUE(a.ok()) << a.status();
    auto b = budget.Reserve(Bytes(70 * kMiB));
    ASSERT_TRUE(b.ok()) << b.status();
    EXPECT_EQ(budget.reserved(), 100 * kMiB);
    EXPECT_EQ(a->bytes(), 30 * kMiB);
    a->Release();
    EXPECT_EQ(budget.reserved(), 70 * kMiB);
    PictureMemoryBudget::Reservation moved = *std::move(b);
    EXPECT_EQ(budget.reserved(), 70 * kMiB);
    EXPECT_EQ(moved.bytes(), 70 * kMiB);
  }
  EXPECT_EQ(budget.reserved(), 0);
  EXPECT_EQ(budget.counts().waited, 0u);
}

TEST(PictureMemoryBudgetTest, MoveAssignmentGivesBackWhatItHeld) {
  PictureMemoryBudget budget(Budget(100 * kMiB));
  auto a = budget.Reserve(Bytes(10 * kMiB));
  auto b = budget.Reserve(Bytes(20 * kMiB));
  ASSERT_TRUE(a.ok() && b.ok());
  *a = *std::move(b);
  EXPECT_EQ(budget.reserved(), 20 * kMiB);
}

TEST(PictureMemoryBudgetTest, WhatCanNeverFitIsRefusedAtOnceNamingTheSizes) {
  PictureMemoryBudget budget(Budget(100 * kMiB, absl::Hours(1)));
  const absl::Time start = absl::Now();
  auto alone = budget.Reserve(Bytes(101 * kMiB));
  EXPECT_EQ(alone.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(alone.status().message(), HasSubstr("needs 101.0 MiB of memory"));
  EXPECT_THAT(alone.status().message(), HasSubstr("budget of 100.0 MiB"));
  EXPECT_THAT(alone.status().message(), HasSubstr("--decoded_memory_budget"));
  // With what the same call already holds.
  auto with_call = budget.Reserve(Bytes(60 * kMiB, 50 * kMiB));
  EXPECT_EQ(with_call.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(with_call.status().message(), HasSubstr("110.0 MiB with the call's other inputs"));
  EXPECT_LT(absl::Now() - start, absl::Seconds(1));
  EXPECT_EQ(budget.counts().refused_over_budget, 2u);
  EXPECT_EQ(budget.reserved(), 0);
}

TEST(PictureMemoryBudgetTest, WaitsUntilAnotherCallGivesBack) {
  PictureMemoryBudget budget(Budget(100 * kMiB));
  std::optional<PictureMemoryBudget::Reservation> held;
  held.emplace(*budget.Reserve(Bytes(80 * kMiB)));
  std::thread releaser([&] {
    absl::SleepFor(absl::Milliseconds(200));
    held.reset();
  });
  const absl::Time start = absl::Now();
  auto waited = budget.Reserve(Bytes(50 * kMiB));
  const absl::Duration took = absl::Now() - start;
  releaser.join();
  ASSERT_TRUE(waited.ok()) << waited.status();
  EXPECT_GE(took, absl::Milliseconds(150));
  EXPECT_EQ(budget.reserved(), 50 * kMiB);
  EXPECT_EQ(budget.counts().waited, 1u);
}

TEST(PictureMemoryBudgetTest, GivesUpAfterTheWaitNamingWhatIsInUse) {
  PictureMemoryBudget budget(Budget(100 * kMiB, absl::Milliseconds(200)));
  auto held = budget.Reserve(Bytes(90 * kMiB));
  ASSERT_TRUE(held.ok());
  const absl::Time start = absl::Now();
  auto refused = budget.Reserve(Bytes(20 * kMiB));
  EXPECT_GE(absl::Now() - start, absl::Milliseconds(190));
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(refused.status().message(), HasSubstr("needs 20.0 MiB"));
  EXPECT_THAT(refused.status().message(), HasSubstr("90.0 MiB of this server's budget of 100.0 MiB"));
  EXPECT_THAT(refused.status().message(), HasSubstr("200ms (--decoded_memory_wait)"));
  EXPECT_EQ(budget.counts().refused_timeout, 1u);
  EXPECT_EQ(budget.reserved(), 90 * kMiB);
}

TEST(PictureMemoryBudgetTest, TheCallsCancellationEndsTheWait) {
  PictureMemoryBudget budget(Budget(100 * kMiB, absl::Hours(1)));
  auto held = budget.Reserve(Bytes(100 * kMiB));
  ASSERT_TRUE(held.ok());
  std::atomic<bool> cancelled{false};
  std::thread canceller([&] {
    absl::SleepFor(absl::Milliseconds(100));
    cancelled = true;
  });
  PictureMemoryBudget::Request request = Bytes(kMiB);
  request.cancelled = [&] { return cancelled.load(); };
  auto waited = budget.Reserve(request);
  canceller.join();
  EXPECT_EQ(waited.status().code(), absl::StatusCode::kCancelled);
  EXPECT_EQ(budget.counts().cancelled, 1u);
  EXPECT_EQ(budget.reserved(), 100 * kMiB);
}

TEST(PictureMemoryBudgetTest, FirstComeFirstServedSoLargeRequestsAreNotPassedForever) {
  PictureMemoryBudget budget(Budget(100 * kMiB));
  std::optional<PictureMemoryBudget::Reservation> held;
  held.emplace(*budget.Reserve(Bytes(60 * kMiB)));
  // A large request waits for the 60 MiB; a small one that would fit now queues behind it.
  std::optional<absl::StatusOr<PictureMemoryBudget::Reservation>> large;
  std::thread large_waiter([&] { large.emplace(budget.Reserve(Bytes(95 * kMiB))); });
  while (budget.counts().waited < 1) absl::SleepFor(absl::Milliseconds(5));
  std::atomic<bool> small_granted{false};
  std::optional<absl::StatusOr<PictureMemoryBudget::Reservation>> small;
  std::thread small_waiter([&] {
    small.emplace(budget.Reserve(Bytes(10 * kMiB)));
    small_granted = true;
  });
  absl::SleepFor(absl::Milliseconds(200));
  EXPECT_FALSE(small_granted.load());
  held.reset();
  large_waiter.join();
  ASSERT_TRUE(large->ok()) << large->status();
  EXPECT_EQ(budget.reserved(), 95 * kMiB);
  EXPECT_FALSE(small_granted.load());
  large->value().Release();
  small_waiter.join();
  ASSERT_TRUE(small->ok()) << small->status();
  EXPECT_EQ(budget.reserved(), 10 * kMiB);
}

TEST(PictureMemoryBudgetTest, TheObserverHearsEveryChangeInOrder) {
  using Event = PictureMemoryBudget::Event;
  std::vector<std::pair<Event, int64_t>> heard;
  PictureMemoryBudget::Options options = Budget(100 * kMiB, absl::Milliseconds(50));
  options.observer = [&heard](Event event, int64_t reserved) {
    heard.emplace_back(event, reserved);
  };
  PictureMemoryBudget budget(options);
  {
    auto held = budget.Reserve(Bytes(70 * kMiB));
    ASSERT_TRUE(held.ok());
    EXPECT_FALSE(budget.Reserve(Bytes(200 * kMiB)).ok());
    EXPECT_FALSE(budget.Reserve(Bytes(40 * kMiB)).ok());
  }
  const std::vector<std::pair<Event, int64_t>> expected = {
      {Event::kReserved, 70 * kMiB},          {Event::kRefusedOverBudget, 70 * kMiB},
      {Event::kWaited, 70 * kMiB},            {Event::kRefusedTimeout, 70 * kMiB},
      {Event::kReleased, 0},
  };
  EXPECT_EQ(heard, expected);
}

TEST(PictureMemoryBudgetTest, ManyThreadsNeverPassTheCapacity) {
  PictureMemoryBudget budget(Budget(10 * kMiB));
  std::atomic<int64_t> held{0};
  std::atomic<int64_t> most{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 50; ++i) {
        const int64_t bytes = (1 + (t + i) % 4) * kMiB;
        auto reservation = budget.Reserve(Bytes(bytes));
        ASSERT_TRUE(reservation.ok()) << reservation.status();
        const int64_t now = held += bytes;
        int64_t seen = most.load();
        while (now > seen && !most.compare_exchange_weak(seen, now)) {
        }
        held -= bytes;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_LE(most.load(), 10 * kMiB);
  EXPECT_EQ(budget.reserved(), 0);
}

}  // namespace
}  // namespace ssimd
