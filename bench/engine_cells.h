// Cells that score frames straight from memory through an engine backend (no gRPC): several
// threads feed one Scorer so that its stream slots (GPU) or cores (CPU) stay busy.
#ifndef SSIMD_BENCH_ENGINE_CELLS_H_
#define SSIMD_BENCH_ENGINE_CELLS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "bench/stats.h"
#include "bench/synthetic_frames.h"
#include "engine/features.h"
#include "engine/scorer.h"

namespace ssimd::bench {

// How long a cell runs: first a warm-up whose pairs are not counted (first-use allocations, slot
// buffers, clocks), then the measured window. Feeding stops at the end of the window.
struct CellTiming {
  double warmup_seconds = 0.5;
  double measure_seconds = 3;
};

struct EngineCellSpec {
  std::string section = "engine";  // "device" for one thread on a one-slot GPU scorer
  Scorer* scorer = nullptr;
  std::string backend;             // "gpu" or "cpu", as reported
  int gpu_slots = 0;
  const FrameSet* frames = nullptr;
  // The CPU engine's scores of each pair in `frames` (every result is compared with them).
  const std::vector<FrameScores>* expected = nullptr;
  FeatureSet features;
  int threads = 1;
  CellTiming timing;
};

CellResult RunEngineCell(const EngineCellSpec& spec);

// The CPU engine's scores of every pair of `frames`: the ground truth other cells compare with.
absl::StatusOr<std::vector<FrameScores>> ReferenceScores(Scorer& cpu, const FrameSet& frames,
                                                         const FeatureSet& features);

// Canonical feature arguments joined by spaces, e.g. "float_ssim=scale=0:...".
std::string FeatureLabel(const FeatureSet& features);

}  // namespace ssimd::bench

#endif  // SSIMD_BENCH_ENGINE_CELLS_H_
