#include "engine/media/picture_memory_budget.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_format.h"

namespace ssimd {
namespace {

// How often a waiting reservation looks at its call's cancellation.
constexpr absl::Duration kCancelPoll = absl::Milliseconds(50);

}  // namespace

std::string BytesText(int64_t bytes) {
  static constexpr const char* kUnits[] = {"KiB", "MiB", "GiB", "TiB", "PiB"};
  if (bytes < 1024) return absl::StrFormat("%d bytes", bytes);
  double value = static_cast<double>(bytes);
  int unit = -1;
  while (value >= 1024 && unit < 4) {
    value /= 1024;
    ++unit;
  }
  return absl::StrFormat("%.1f %s", value, kUnits[unit]);
}

PictureMemoryBudget::Reservation::Reservation(Reservation&& other) noexcept
    : budget_(std::exchange(other.budget_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}

PictureMemoryBudget::Reservation& PictureMemoryBudget::Reservation::operator=(
    Reservation&& other) noexcept {
  if (this != &other) {
    Release();
    budget_ = std::exchange(other.budget_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

void PictureMemoryBudget::Reservation::Release() {
  if (budget_ != nullptr) budget_->Give(bytes_);
  budget_ = nullptr;
  bytes_ = 0;
}

PictureMemoryBudget::PictureMemoryBudget(const Options& options) : options_(options) {}

int64_t PictureMemoryBudget::reserved() const {
  absl::MutexLock lock(&mu_);
  return reserved_;
}

PictureMemoryBudget::Counts PictureMemoryBudget::counts() const {
  absl::MutexLock lock(&mu_);
  return counts_;
}

void PictureMemoryBudget::Give(int64_t bytes) {
  {
    absl::MutexLock lock(&mu_);
    reserved_ -= bytes;
    Tell(Event::kReleased);
  }
  changed_.SignalAll();
}

void PictureMemoryBudget::LeaveQueue(uint64_t ticket) {
  waiting_.erase(std::find(waiting_.begin(), waiting_.end(), ticket));
  // The next in line may fit where this one did not.
  changed_.SignalAll();
}

absl::StatusOr<PictureMemoryBudget::Reservation> PictureMemoryBudget::Reserve(
    const Request& request) {
  const int64_t bytes = std::max<int64_t>(0, request.bytes);
  absl::MutexLock lock(&mu_);
  const int64_t call_bytes = request.held_by_call + bytes;
  if (call_bytes > options_.capacity_bytes) {
    ++counts_.refused_over_budget;
    Tell(Event::kRefusedOverBudget);
    const std::string with_call =
        request.held_by_call > 0
            ? absl::StrFormat(", %s with the call's other inputs", BytesText(call_bytes))
            : "";
    return absl::ResourceExhaustedError(absl::StrFormat(
        "needs %s of memory for its decoded pictures%s, more than this server's budget of %s "
        "for all calls (%s); it cannot be served here: use smaller pictures, fewer inputs in "
        "one call, or a server with a larger budget",
        BytesText(bytes), with_call, BytesText(options_.capacity_bytes),
        options_.capacity_name));
  }
  if (waiting_.empty() && Fits(bytes)) {
    reserved_ += bytes;
    Tell(Event::kReserved);
    return Reservation(this, bytes);
  }
  ++counts_.waited;
  Tell(Event::kWaited);
  const uint64_t ticket = next_ticket_++;
  waiting_.push_back(ticket);
  const absl::Time deadline = absl::Now() + options_.wait;
  while (waiting_.front() != ticket || !Fits(bytes)) {
    if (request.cancelled && request.cancelled()) {
      ++counts_.cancelled;
      Tell(Event::kCancelled);
      LeaveQueue(ticket);
      return absl::CancelledError(
          "the call ended while its input waited for memory for its decoded pictures");
    }
    const absl::Time now = absl::Now();
    if (now >= deadline) {
      ++counts_.refused_timeout;
      Tell(Event::kRefusedTimeout);
      const int64_t in_use = reserved_;
      LeaveQueue(ticket);
      return absl::ResourceExhaustedError(absl::StrFormat(
          "needs %s of memory for its decoded pictures, but %s of this server's budget of %s "
          "(%s) stayed in use by other calls for %s (%s); retry later or on another replica",
          BytesText(bytes), BytesText(in_use), BytesText(options_.capacity_bytes),
          options_.capacity_name, absl::FormatDuration(options_.wait), options_.wait_name));
    }
    changed_.WaitWithDeadline(&mu_, std::min(deadline, now + kCancelPoll));
  }
  waiting_.pop_front();
  reserved_ += bytes;
  Tell(Event::kReserved);
  // The next in line may fit too.
  changed_.SignalAll();
  return Reservation(this, bytes);
}

}  // namespace ssimd
