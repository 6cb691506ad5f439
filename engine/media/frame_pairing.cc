#include "engine/media/frame_pairing.h"

#include "absl/strings/str_format.h"

namespace ssimd {

FramePairer::FramePairer(VideoInput* reference, VideoInput* distorted,
                         const PairingOptions& options)
    : reference_(reference), distorted_(distorted), options_(options) {}

absl::StatusOr<bool> FramePairer::Next(std::string* reference, std::string* distorted) {
  if (done_) return false;
  if (options_.frame_count > 0 && pairs_ == options_.frame_count) return Finish(false, false);
  absl::StatusOr<bool> got_reference = reference_->ReadPlanes(reference);
  if (!got_reference.ok()) return got_reference.status();
  absl::StatusOr<bool> got_distorted = distorted_->ReadPlanes(distorted);
  if (!got_distorted.ok()) return got_distorted.status();
  if (!*got_reference || !*got_distorted) return Finish(!*got_reference, !*got_distorted);
  ++pairs_;
  return true;
}

absl::StatusOr<bool> FramePairer::Finish(bool reference_ended, bool distorted_ended) {
  done_ = true;
  // Only the input that has not ended can have frames left; with a frame count, only up to it.
  const uint64_t limit = options_.frame_count > 0 ? options_.frame_count - pairs_ : 0;
  if (reference_ended != distorted_ended && (options_.frame_count == 0 || limit > 0)) {
    VideoInput* longer = reference_ended ? distorted_ : reference_;
    // The longer input already gave one frame that found no partner.
    absl::StatusOr<uint64_t> rest = longer->CountRemaining(limit > 0 ? limit - 1 : 0);
    if (!rest.ok()) return rest.status();
    (reference_ended ? unmatched_.distorted : unmatched_.reference) = 1 + *rest;
  }
  if (options_.require_equal_length && (unmatched_.reference > 0 || unmatched_.distorted > 0)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "the files have different lengths: %s has %d frames, %s has %d (after the start "
        "offsets); leave require_equal_length unset to score the %d common frames",
        reference_->name(), pairs_ + unmatched_.reference, distorted_->name(),
        pairs_ + unmatched_.distorted, pairs_));
  }
  return false;
}

}  // namespace ssimd
