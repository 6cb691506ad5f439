#include "server/stream_registry.h"

#include <vector>

#include "absl/time/clock.h"

namespace ssimd {

StreamRegistry::~StreamRegistry() { StopWatchdog(); }

void StreamRegistry::Add(RegisteredStream* stream) {
  absl::MutexLock lock(&mu_);
  streams_.insert(stream);
}

void StreamRegistry::Remove(RegisteredStream* stream) {
  absl::MutexLock lock(&mu_);
  streams_.erase(stream);
}

int StreamRegistry::size() const {
  absl::MutexLock lock(&mu_);
  return static_cast<int>(streams_.size());
}

void StreamRegistry::ForEach(const std::function<void(RegisteredStream&)>& fn) {
  std::vector<RegisteredStream*> held;
  {
    // A stream cannot be destroyed while the lock is held (its destructor removes it first), and a
    // held stream is not destroyed before Release.
    absl::MutexLock lock(&mu_);
    held.reserve(streams_.size());
    for (RegisteredStream* stream : streams_) {
      if (stream->TryHold()) held.push_back(stream);
    }
  }
  for (RegisteredStream* stream : held) {
    fn(*stream);
    stream->Release();
  }
}

void StreamRegistry::StartWatchdog(absl::Duration timeout, absl::Duration period) {
  if (timeout <= absl::ZeroDuration() || watchdog_.joinable()) return;
  watchdog_ = std::thread([this, timeout, period] { Watch(timeout, period); });
}

void StreamRegistry::StopWatchdog() {
  if (!watchdog_.joinable()) return;
  if (!stop_.HasBeenNotified()) stop_.Notify();
  watchdog_.join();
}

void StreamRegistry::Watch(absl::Duration timeout, absl::Duration period) {
  while (!stop_.WaitForNotificationWithTimeout(period)) {
    const absl::Time now = absl::Now();
    ForEach([&](RegisteredStream& stream) {
      const absl::Duration waited = stream.WaitingOnClient(now);
      if (waited > timeout) stream.AbortIdle(waited, timeout);
    });
  }
}

}  // namespace ssimd
