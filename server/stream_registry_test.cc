#include "server/stream_registry.h"

#include <atomic>
#include <string>

#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"

namespace ssimd {
namespace {

class FakeStream : public RegisteredStream {
 public:
  explicit FakeStream(absl::Duration idle_for) : idle_since_(absl::Now() - idle_for) {}

  bool TryHold() override {
    absl::MutexLock lock(&mu_);
    if (finished_) return false;
    ++holds_;
    return true;
  }
  void Release() override {
    absl::MutexLock lock(&mu_);
    --holds_;
  }
  absl::Duration WaitingOnClient(absl::Time now) const override {
    absl::MutexLock lock(&mu_);
    return finished_ ? absl::ZeroDuration() : now - idle_since_;
  }
  void Abort(const absl::Status& status) override {
    absl::MutexLock lock(&mu_);
    finished_ = true;
    status_ = status;
  }
  void AbortIdle(absl::Duration waited, absl::Duration timeout) override {
    EXPECT_GT(waited, timeout);
    Abort(absl::DeadlineExceededError("idle"));
  }

  absl::Status status() const {
    absl::MutexLock lock(&mu_);
    return status_;
  }
  int holds() const {
    absl::MutexLock lock(&mu_);
    return holds_;
  }
  void Finish() {
    absl::MutexLock lock(&mu_);
    finished_ = true;
  }

 private:
  mutable absl::Mutex mu_;
  absl::Time idle_since_;
  bool finished_ = false;
  int holds_ = 0;
  absl::Status status_;
};

TEST(StreamRegistryTest, WatchdogEndsOnlyStreamsIdleLongerThanTheTimeout) {
  StreamRegistry registry;
  FakeStream idle(absl::Seconds(10));
  FakeStream busy(absl::ZeroDuration());
  registry.Add(&idle);
  registry.Add(&busy);
  registry.StartWatchdog(absl::Seconds(5), absl::Milliseconds(10));
  const absl::Time give_up = absl::Now() + absl::Seconds(10);
  while (idle.status().ok() && absl::Now() < give_up) absl::SleepFor(absl::Milliseconds(5));
  registry.StopWatchdog();
  EXPECT_EQ(idle.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_TRUE(busy.status().ok());
  EXPECT_EQ(idle.holds(), 0);
  EXPECT_EQ(busy.holds(), 0);
  registry.Remove(&idle);
  registry.Remove(&busy);
}

TEST(StreamRegistryTest, ForEachSkipsStreamsThatAreFinishing) {
  StreamRegistry registry;
  FakeStream open(absl::ZeroDuration());
  FakeStream finishing(absl::ZeroDuration());
  finishing.Finish();
  registry.Add(&open);
  registry.Add(&finishing);
  int visited = 0;
  registry.ForEach([&](RegisteredStream& stream) {
    ++visited;
    EXPECT_EQ(&stream, &open);
    stream.Abort(absl::UnavailableError("shutting down"));
  });
  EXPECT_EQ(visited, 1);
  EXPECT_EQ(open.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(registry.size(), 2);
  registry.Remove(&open);
  registry.Remove(&finishing);
  EXPECT_EQ(registry.size(), 0);
}

TEST(StreamRegistryTest, ZeroTimeoutStartsNoWatchdog) {
  StreamRegistry registry;
  FakeStream idle(absl::Hours(1));
  registry.Add(&idle);
  registry.StartWatchdog(absl::ZeroDuration(), absl::Milliseconds(1));
  absl::SleepFor(absl::Milliseconds(30));
  EXPECT_TRUE(idle.status().ok());
  registry.Remove(&idle);
}

}  // namespace
}  // namespace ssimd
