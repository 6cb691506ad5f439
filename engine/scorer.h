// The one interface every backend implements: score one frame pair.
#ifndef SSIMD_ENGINE_SCORER_H_
#define SSIMD_ENGINE_SCORER_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "engine/features.h"
#include "engine/picture.h"
#include "engine/plane_pieces.h"

namespace ssimd {

struct FramePair {
  LumaView reference;
  LumaView distorted;
  // Set where the features read chroma (FeaturesReadChroma); the views outlive the call.
  const FrameChroma* chroma = nullptr;
  // The reference picture of the frame before, where the features are temporal (vmaf's motion,
  // FeaturesReadPreviousReference); null for an input's first frame.
  const LumaView* previous_reference = nullptr;
};

// Seconds spent in each stage of one frame; stages a backend does not have stay 0.
struct StageTimings {
  double queue_wait = 0;   // waiting for a device slot or CPU worker
  double upload = 0;       // host to device
  double compute = 0;      // kernels (or the CPU arithmetic)
  double readback = 0;     // device to host
  double host_finish = 0;  // host sums, means, dB
  double total = 0;
};

struct ScoreResult {
  FrameScores scores;
  FrameSums sums;  // what the clip's aggregate values need (engine/features.h)
  std::string backend;          // "cpu" or "gpu:<index>"
  std::string fallback_reason;  // empty unless the dispatcher fell back to the CPU
  StageTimings timings;
};

// Counters of one device of a backend that has devices (the GPU backend), for metrics and
// capabilities (frames scored, slots in use, device memory held): the server reads them through
// this interface, not through a backend's own header.
struct DeviceStats {
  int index = 0;
  int64_t frames_scored = 0;
  int slots_in_use = 0;
  int slots_total = 0;
  int64_t memory_in_use_bytes = 0;
  bool lost = false;
  // Frames whose float_ssim mean came from the raster-order host sum of per-pixel terms because
  // the device's sum was within its error bound of a binary32 rounding boundary (rare).
  int64_t float_ssim_ordered_sums = 0;
  // Frames where some scale of float_ms_ssim took that host sum, for the same reason.
  int64_t float_ms_ssim_ordered_sums = 0;
  // Frames whose ssim was summed on the host in index order: the exact sum on the device fell
  // back, for one of the reasons counted below.
  int64_t ssim_ordered_sums = 0;
  // Frames whose exact ssim sum fell back from the device to the host's serial sum, by reason
  // (kernels/exact_sum_math.h, docs/adr/0022): more serial additions than the device's budget
  // (a running sum that keeps changing binade), or a run whose piece did not fit the binade its
  // approximate sums promised.
  int64_t ssim_exact_fallbacks_serial_budget = 0;
  int64_t ssim_exact_fallbacks_check_failed = 0;
  // Luma planes read where a video engine decoded them on this device (docs/adr/0083), and
  // planes decoded on another device that came through the host.
  int64_t planes_read_on_device = 0;
  int64_t device_planes_through_host = 0;
};

class Scorer {
 public:
  virtual ~Scorer() = default;

  // "cpu" or "gpu".
  virtual std::string_view name() const = 0;

  // OK if this backend can score pictures of this geometry with these features, else
  // FAILED_PRECONDITION whose message says why (used by the dispatcher to fall back).
  virtual absl::Status CheckContext(const Geometry& geometry, const FeatureSet& features) const = 0;

  // Scores one pair. Thread-safe: called concurrently from many streams. The views must match
  // `geometry` (validated by the caller). Errors: INVALID_ARGUMENT for bad input, UNAVAILABLE or
  // INTERNAL for backend failures.
  virtual absl::StatusOr<ScoreResult> Score(const Geometry& geometry, const FeatureSet& features,
                                            const FramePair& pair) = 0;

  // Scores a pair whose tightly packed planes arrive in pieces (e.g. the slices of a received
  // message), with Score's contract; INVALID_ARGUMENT when a plane does not hold exactly the
  // geometry's bytes. This default gathers each plane into one buffer when it has several pieces
  // (a copy) and calls Score; a backend that copies the planes anyway overrides it to copy
  // straight from the pieces.
  virtual absl::StatusOr<ScoreResult> ScorePieces(const Geometry& geometry,
                                                  const FeatureSet& features,
                                                  const PiecewiseFramePair& pair);

  // False once the backend can no longer serve (e.g. its device was lost).
  virtual bool Healthy() const { return true; }
};

}  // namespace ssimd

#endif  // SSIMD_ENGINE_SCORER_H_
