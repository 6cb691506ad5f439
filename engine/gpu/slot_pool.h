// Leases of per-device stream slots. Each pool entry is one device (or, in tests, one device listed
// again) with a fixed number of slots; a frame leases one slot for its whole life and the lease
// returns it on every path, errors included. Device-free, so its logic is tested without a GPU.
#ifndef SSIMD_ENGINE_GPU_SLOT_POOL_H_
#define SSIMD_ENGINE_GPU_SLOT_POOL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"

namespace ssimd {

class SlotPool {
 public:
  // A leased slot; returns it to the pool when destroyed or Release()d. Move-only.
  class Lease {
   public:
    Lease() = default;
    Lease(Lease&& other) noexcept;
    Lease& operator=(Lease&& other) noexcept;
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    ~Lease() { Release(); }

    int entry() const { return entry_; }
    int slot() const { return slot_; }
    // Seconds the caller waited for a free slot.
    double wait_seconds() const { return wait_seconds_; }
    void Release();

   private:
    friend class SlotPool;
    Lease(SlotPool* pool, int entry, int slot, double wait_seconds)
        : pool_(pool), entry_(entry), slot_(slot), wait_seconds_(wait_seconds) {}

    SlotPool* pool_ = nullptr;
    int entry_ = -1;
    int slot_ = -1;
    double wait_seconds_ = 0;
  };

  // `slots_per_entry[e]` slots for entry e (each at least 1).
  explicit SlotPool(const std::vector<int>& slots_per_entry);

  // Waits for a free slot on a usable entry, preferring the entry with the most free slots (ties
  // rotate). UNAVAILABLE once every entry is lost.
  absl::StatusOr<Lease> Acquire();

  // Takes an entry out of service for good (its device was lost). Leases already out stay valid
  // until returned; waiters move to other entries or fail when none is left.
  void MarkLost(int entry, const std::string& reason);

  bool IsLost(int entry) const;
  std::string LostReason(int entry) const;
  bool AnyUsable() const;
  int entries() const { return static_cast<int>(entries_.size()); }
  int SlotsInUse(int entry) const;
  int SlotsTotal(int entry) const;

 private:
  struct Entry {
    std::vector<bool> busy;
    int in_use = 0;
    bool lost = false;
    std::string lost_reason;
  };

  void Return(int entry, int slot);
  // The entry to lease from now, or -1 when none has a free slot.
  int PickEntry() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  bool CanProceed() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  mutable absl::Mutex mu_;
  std::vector<Entry> entries_ ABSL_GUARDED_BY(mu_);
  int rotation_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace ssimd

#endif  // SSIMD_ENGINE_GPU_SLOT_POOL_H_
