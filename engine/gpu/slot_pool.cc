#include "engine/gpu/slot_pool.h"

#include <chrono>
#include <utility>

#include "absl/strings/str_format.h"

namespace ssimd {

SlotPool::Lease::Lease(Lease&& other) noexcept
    : pool_(std::exchange(other.pool_, nullptr)),
      entry_(other.entry_),
      slot_(other.slot_),
      wait_seconds_(other.wait_seconds_) {}

SlotPool::Lease& SlotPool::Lease::operator=(Lease&& other) noexcept {
  if (this != &other) {
    Release();
    pool_ = std::exchange(other.pool_, nullptr);
    entry_ = other.entry_;
    slot_ = other.slot_;
    wait_seconds_ = other.wait_seconds_;
  }
  return *this;
}

void SlotPool::Lease::Release() {
  if (pool_ != nullptr) std::exchange(pool_, nullptr)->Return(entry_, slot_);
}

SlotPool::SlotPool(const std::vector<int>& slots_per_entry) {
  entries_.resize(slots_per_entry.size());
  for (size_t e = 0; e < slots_per_entry.size(); ++e) {
    entries_[e].busy.assign(slots_per_entry[e] < 1 ? 1 : slots_per_entry[e], false);
  }
}

int SlotPool::PickEntry() const {
  const int n = static_cast<int>(entries_.size());
  int best = -1;
  int best_free = 0;
  for (int k = 0; k < n; ++k) {
    const int e = (rotation_ + k) % n;
    const Entry& entry = entries_[e];
    if (entry.lost) continue;
    const int free_slots = static_cast<int>(entry.busy.size()) - entry.in_use;
    if (free_slots > best_free) {
      best = e;
      best_free = free_slots;
    }
  }
  return best;
}

bool SlotPool::CanProceed() const {
  if (PickEntry() >= 0) return true;
  for (const Entry& entry : entries_) {
    if (!entry.lost) return false;
  }
  return true;  // every entry is lost: wake up to fail
}

absl::StatusOr<SlotPool::Lease> SlotPool::Acquire() {
  const auto start = std::chrono::steady_clock::now();
  absl::MutexLock lock(&mu_);
  mu_.Await(absl::Condition(this, &SlotPool::CanProceed));
  const int e = PickEntry();
  if (e < 0) {
    std::string reasons;
    for (size_t i = 0; i < entries_.size(); ++i) {
      absl::StrAppendFormat(&reasons, "%sentry %d: %s", i == 0 ? "" : "; ", i,
                            entries_[i].lost_reason);
    }
    return absl::UnavailableError(absl::StrFormat("every GPU of the pool was lost (%s)", reasons));
  }
  Entry& entry = entries_[e];
  int slot = 0;
  while (entry.busy[slot]) ++slot;
  entry.busy[slot] = true;
  ++entry.in_use;
  rotation_ = (e + 1) % static_cast<int>(entries_.size());
  const double waited =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return Lease(this, e, slot, waited);
}

void SlotPool::Return(int entry, int slot) {
  absl::MutexLock lock(&mu_);
  entries_[entry].busy[slot] = false;
  --entries_[entry].in_use;
}

void SlotPool::MarkLost(int entry, const std::string& reason) {
  absl::MutexLock lock(&mu_);
  if (entries_[entry].lost) return;
  entries_[entry].lost = true;
  entries_[entry].lost_reason = reason;
}

bool SlotPool::IsLost(int entry) const {
  absl::MutexLock lock(&mu_);
  return entries_[entry].lost;
}

std::string SlotPool::LostReason(int entry) const {
  absl::MutexLock lock(&mu_);
  return entries_[entry].lost_reason;
}

bool SlotPool::AnyUsable() const {
  absl::MutexLock lock(&mu_);
  for (const Entry& entry : entries_) {
    if (!entry.lost) return true;
  }
  return false;
}

int SlotPool::SlotsInUse(int entry) const {
  absl::MutexLock lock(&mu_);
  return entries_[entry].in_use;
}

int SlotPool::SlotsTotal(int entry) const {
  absl::MutexLock lock(&mu_);
  return static_cast<int>(entries_[entry].busy.size());
}

}  // namespace ssimd
