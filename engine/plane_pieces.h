// A tightly packed luma plane whose bytes lie in several pieces, in order: typically the slices a
// gRPC message arrived in, which split rows (and even 16-bit samples) anywhere. Backends that copy
// a plane anyway (the GPU, into pinned staging) copy straight from the pieces, so a received frame
// is copied once on its way to the device; others gather the pieces (Gather) when there is more
// than one. Views only: whoever built it keeps the bytes alive while the frame is scored. A plane
// can also lie in a GPU's memory (device_plane.h), which the GPU backend reads in place.
#ifndef SSIMD_ENGINE_PLANE_PIECES_H_
#define SSIMD_ENGINE_PLANE_PIECES_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "engine/device_plane.h"
#include "engine/picture.h"

namespace ssimd {

class PlanePieces {
 public:
  PlanePieces() = default;
  explicit PlanePieces(absl::Span<const uint8_t> whole) { Add(whole); }
  // A plane in a GPU's memory instead of host bytes (device_plane.h); size() is its packed size.
  explicit PlanePieces(const DevicePlane& on_device)
      : device_(&on_device), size_(on_device.packed_bytes()) {}

  // Appends the next bytes of the plane (empty pieces are dropped).
  void Add(absl::Span<const uint8_t> piece) {
    if (piece.empty()) return;
    pieces_.push_back(piece);
    size_ += piece.size();
  }
  void Clear() {
    pieces_.clear();
    size_ = 0;
  }

  size_t size() const { return size_; }
  const std::vector<absl::Span<const uint8_t>>& pieces() const { return pieces_; }
  // The device plane, or null for host pieces.
  const DevicePlane* device() const { return device_; }

  // The plane's bytes in one span: the piece itself when there is one (no copy), else the pieces
  // copied into `scratch` (grown as needed, kept by the caller for the next frame).
  absl::Span<const uint8_t> Gather(std::vector<uint8_t>& scratch) const;
  // The plane's bytes on the host: Gather's, or a device plane's copy into `scratch`.
  absl::StatusOr<absl::Span<const uint8_t>> HostBytes(std::vector<uint8_t>& scratch) const;

 private:
  const DevicePlane* device_ = nullptr;
  std::vector<absl::Span<const uint8_t>> pieces_;
  size_t size_ = 0;
};

struct LumaScalePlan;  // engine/luma_scale_plan.h

// The two planes of a frame pair, in pieces.
struct PiecewiseFramePair {
  const PlanePieces* reference = nullptr;
  const PlanePieces* distorted = nullptr;
  // When set, `distorted` holds the picture before its upscale (the plan's source size, the
  // pair's bit depth), and the backend brings it to the pair's size with the plan: on a GPU the
  // smaller picture is what crosses the bus, and the scaling runs beside the scoring.
  const LumaScalePlan* distorted_upscale = nullptr;
  // Set where the features read chroma (FeaturesReadChroma): host views at libvmaf's sizes, but
  // with `distorted_upscale` the distorted views are the whole planes before the upscale, which
  // the backend scales with the plan's chroma plan (PairChromaToScore makes both kinds).
  const FrameChroma* chroma = nullptr;
  // FramePair::previous_reference, in pieces.
  const PlanePieces* previous_reference = nullptr;
};

}  // namespace ssimd

#endif  // SSIMD_ENGINE_PLANE_PIECES_H_
