// What stops the inputs of one call from being opened or fetched: the call ending (its client
// cancelled, its deadline passed, its connection dropped, or the server shut down) and the call's
// time for fetching URLs running out (--url_call_timeout). Without it a cancelled ScoreLadder
// would go on fetching every rendition left, each up to --url_timeout, holding its stream slot.
#ifndef SSIMD_SERVER_FETCH_CONTROL_H_
#define SSIMD_SERVER_FETCH_CONTROL_H_

#include <functional>
#include <utility>

#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace ssimd {

class FetchControl {
 public:
  // Never stopped, no time limit of its own: for fetches outside a call (tests, tools).
  FetchControl() = default;

  // `call_ended` answers true once the call is over; it is asked often, from the thread that
  // fetches, so it must be cheap (an atomic flag). The call may fetch for `budget` from `start`.
  FetchControl(std::function<bool()> call_ended, absl::Duration budget,
               absl::Time start = absl::Now())
      : call_ended_(std::move(call_ended)), budget_(budget), deadline_(start + budget) {}

  bool CallEnded() const { return call_ended_ != nullptr && call_ended_(); }
  // When the call's time for fetching is over (absl::InfiniteFuture() without a budget).
  absl::Time deadline() const { return deadline_; }
  // The budget itself, for messages.
  absl::Duration budget() const { return budget_; }

 private:
  std::function<bool()> call_ended_;
  absl::Duration budget_ = absl::InfiniteDuration();
  absl::Time deadline_ = absl::InfiniteFuture();
};

}  // namespace ssimd

#endif  // SSIMD_SERVER_FETCH_CONTROL_H_
