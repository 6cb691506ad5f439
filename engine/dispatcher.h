// Chooses the backend for each frame: the GPU where it can serve the request, else the CPU, and
// records why it fell back.
#ifndef SSIMD_ENGINE_DISPATCHER_H_
#define SSIMD_ENGINE_DISPATCHER_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "engine/scorer.h"

namespace ssimd {

enum class BackendPreference {
  kAuto,  // GPU when usable for this request, else CPU with a recorded fallback reason
  kGpu,   // GPU only: FAILED_PRECONDITION / UNAVAILABLE when it cannot serve
  kCpu,   // CPU only
};

class Dispatcher {
 public:
  // `gpu` may be null (no device, or a CPU-only build); `gpu_unavailable_reason` says why, and
  // becomes the fallback reason on kAuto.
  Dispatcher(std::unique_ptr<Scorer> cpu, std::unique_ptr<Scorer> gpu,
             std::string gpu_unavailable_reason);

  // OK if a frame of this geometry and features can be served with this preference (checked once
  // per stream, so a clip is refused up front rather than frame by frame).
  absl::Status CheckRequest(const Geometry& geometry, const FeatureSet& features,
                            BackendPreference preference) const;

  // Scores one pair. On kAuto a refused context or a device error falls back to the CPU, and the
  // result's fallback_reason says why ("gpu unavailable: ...", "gpu refused: ...",
  // "gpu error: ..."). A device error that loses the device marks the GPU unhealthy.
  absl::StatusOr<ScoreResult> Score(const Geometry& geometry, const FeatureSet& features,
                                    const FramePair& pair, BackendPreference preference);
  // The same for planes in pieces (Scorer::ScorePieces).
  absl::StatusOr<ScoreResult> ScorePieces(const Geometry& geometry, const FeatureSet& features,
                                          const PiecewiseFramePair& pair,
                                          BackendPreference preference);

  // True when frames of this request would go to the GPU now (a healthy GPU that serves this
  // geometry and these features, and a preference other than kCpu).
  bool WouldUseGpu(const Geometry& geometry, const FeatureSet& features,
                   BackendPreference preference) const;
  // The backend kAuto uses now: "gpu" or "cpu".
  std::string DefaultBackend() const;
  // False when no backend can serve (the CPU always can, so only a GPU-only deployment goes down).
  bool CanServe(BackendPreference preference) const;
  bool GpuHealthy() const;

  Scorer* cpu() const { return cpu_.get(); }
  Scorer* gpu() const { return gpu_.get(); }  // may be null

 private:
  // The backend choice and fallback shared by Score and ScorePieces; `score_on(scorer)` scores
  // the frame on one backend.
  template <typename ScoreOn>
  absl::StatusOr<ScoreResult> Dispatch(const Geometry& geometry, const FeatureSet& features,
                                       BackendPreference preference, const ScoreOn& score_on);

  std::unique_ptr<Scorer> cpu_;
  std::unique_ptr<Scorer> gpu_;
  std::string gpu_unavailable_reason_;
};

}  // namespace ssimd

#endif  // SSIMD_ENGINE_DISPATCHER_H_
