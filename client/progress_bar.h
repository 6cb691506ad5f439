// A one-line progress bar on a terminal: frames done, the total when known, and the rate.
#ifndef SSIMD_CLIENT_PROGRESS_BAR_H_
#define SSIMD_CLIENT_PROGRESS_BAR_H_

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>

#include "absl/time/time.h"

namespace ssimd {

class ProgressBar {
 public:
  // Draws on `out` only when `enabled` (the caller checks that `out` is a terminal).
  ProgressBar(std::FILE* out, bool enabled, std::optional<uint64_t> total);

  // Redraws at most ten times a second.
  void Update(uint64_t done);
  // Draws the final state and ends the line.
  void Finish(uint64_t done);

  // The text of the line for `done` frames after `elapsed` (without the carriage return).
  static std::string Render(uint64_t done, std::optional<uint64_t> total, absl::Duration elapsed,
                            int width);

 private:
  std::FILE* const out_;
  const bool enabled_;
  const std::optional<uint64_t> total_;
  const absl::Time start_;
  absl::Time last_draw_ = absl::InfinitePast();
};

}  // namespace ssimd

#endif  // SSIMD_CLIENT_PROGRESS_BAR_H_
