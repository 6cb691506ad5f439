// The CPU backend: libvmaf's float_ssim and integer ssim, bit for bit. It is both the fallback and
// the ground truth the GPU backend is tested against.
#ifndef SSIMD_ENGINE_CPU_CPU_SCORER_H_
#define SSIMD_ENGINE_CPU_CPU_SCORER_H_

#include <memory>

#include "engine/scorer.h"

namespace ssimd {

struct CpuScorerOptions {
  // Worker threads for the per-pixel work of one frame (0 = hardware concurrency). Results do not
  // depend on it: the final sums always run in libvmaf's raster order.
  int threads = 0;
};

std::unique_ptr<Scorer> MakeCpuScorer(const CpuScorerOptions& options = {});

}  // namespace ssimd

#endif  // SSIMD_ENGINE_CPU_CPU_SCORER_H_
