// A server-wide budget of bytes for decoded and scaled pictures, shared by every call. Each input
// reserves what it may hold before its first frame is decoded and gives it back when it is closed
// (a Reservation). A reservation that does not fit now waits, first come first served, for a
// bounded time; one that could never fit is refused at once. See docs/adr/0084.
#ifndef SSIMD_ENGINE_MEDIA_PICTURE_MEMORY_BUDGET_H_
#define SSIMD_ENGINE_MEDIA_PICTURE_MEMORY_BUDGET_H_

#include <cstdint>
#include <deque>
#include <functional>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace ssimd {

// "512 bytes", "64.0 KiB", "1.5 GiB": for messages about memory.
std::string BytesText(int64_t bytes);

class PictureMemoryBudget {
 public:
  enum class Event {
    kReserved,           // a reservation was granted (at once or after waiting)
    kReleased,           // one was given back
    kWaited,             // one did not fit at once and started waiting
    kRefusedOverBudget,  // one could never fit
    kRefusedTimeout,     // one waited in vain for Options::wait
    kCancelled,          // its call ended while it waited
  };

  struct Options {
    int64_t capacity_bytes = 0;
    // The longest a reservation waits for memory that others hold.
    absl::Duration wait = absl::Seconds(30);
    // What sets the capacity and the wait, named in messages (the server's flags).
    std::string capacity_name = "the decoded-picture budget";
    std::string wait_name = "the wait for memory";
    // Told of every change, for metrics: the event and the bytes reserved after it. Called with
    // the budget's lock held, so that reports arrive in order: it must be quick and must not
    // call back into the budget.
    std::function<void(Event event, int64_t reserved)> observer;
  };

  // Bytes held until destroyed or Release()d. Movable; must not outlive its budget.
  class Reservation {
   public:
    Reservation() = default;
    Reservation(Reservation&& other) noexcept;
    Reservation& operator=(Reservation&& other) noexcept;
    ~Reservation() { Release(); }
    Reservation(const Reservation&) = delete;
    Reservation& operator=(const Reservation&) = delete;

    int64_t bytes() const { return bytes_; }
    void Release();

   private:
    friend class PictureMemoryBudget;
    Reservation(PictureMemoryBudget* budget, int64_t bytes) : budget_(budget), bytes_(bytes) {}
    PictureMemoryBudget* budget_ = nullptr;
    int64_t bytes_ = 0;
  };

  struct Request {
    int64_t bytes = 0;
    // What the same call already holds: a call whose inputs together pass the capacity could
    // never run, and waiting would only hold what it has from others.
    int64_t held_by_call = 0;
    // Polled while waiting; true ends the wait with CANCELLED.
    std::function<bool()> cancelled;
  };

  explicit PictureMemoryBudget(const Options& options);
  // Every reservation must have been released.
  ~PictureMemoryBudget() = default;
  PictureMemoryBudget(const PictureMemoryBudget&) = delete;
  PictureMemoryBudget& operator=(const PictureMemoryBudget&) = delete;

  // A reservation of request.bytes: at once when it fits and nobody waits before it, else once
  // the reservations before it are served and enough is released. RESOURCE_EXHAUSTED at once
  // when held_by_call + bytes is over the capacity, or after Options::wait, naming the bytes,
  // what is in use and the capacity; CANCELLED when `cancelled` turns true while waiting.
  absl::StatusOr<Reservation> Reserve(const Request& request);

  int64_t capacity() const { return options_.capacity_bytes; }
  int64_t reserved() const;

  // Cumulative counts, for metrics.
  struct Counts {
    uint64_t waited = 0;               // reservations that had to wait, whatever came of it
    uint64_t refused_over_budget = 0;  // could never fit
    uint64_t refused_timeout = 0;      // waited in vain for Options::wait
    uint64_t cancelled = 0;            // their call ended while they waited
  };
  Counts counts() const;

 private:
  void Give(int64_t bytes);
  bool Fits(int64_t bytes) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return reserved_ + bytes <= options_.capacity_bytes;
  }
  void LeaveQueue(uint64_t ticket) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void Tell(Event event) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (options_.observer) options_.observer(event, reserved_);
  }

  const Options options_;
  mutable absl::Mutex mu_;
  absl::CondVar changed_;
  int64_t reserved_ ABSL_GUARDED_BY(mu_) = 0;
  // Tickets of the reservations waiting, oldest first: only the oldest may take memory, so that
  // a large one is not passed forever by small ones.
  std::deque<uint64_t> waiting_ ABSL_GUARDED_BY(mu_);
  uint64_t next_ticket_ ABSL_GUARDED_BY(mu_) = 0;
  Counts counts_ ABSL_GUARDED_BY(mu_);
};

}  // namespace ssimd

#endif  // SSIMD_ENGINE_MEDIA_PICTURE_MEMORY_BUDGET_H_
