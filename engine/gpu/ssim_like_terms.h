// Synthetic per-pixel integer ssim terms for the exact sum's tests and benchmarks: W * SSIM, a
// window weight up to 65536 times a value mostly near 1 (docs/adr/0022).
#ifndef SSIMD_ENGINE_GPU_SSIM_LIKE_TERMS_H_
#define SSIMD_ENGINE_GPU_SSIM_LIKE_TERMS_H_

#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace ssimd {

// n terms drawn from `rng`, which goes on from where they leave it.
inline std::vector<double> SsimLikeTerms(size_t n, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> ssim(-0.2, 1.0);
  std::uniform_int_distribution<int> weight(16 * 16, 65536);
  std::vector<double> terms(n);
  for (double& t : terms) t = weight(rng) * ssim(rng);
  return terms;
}

// n terms from a generator seeded with `seed`.
inline std::vector<double> SsimLikeTerms(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  return SsimLikeTerms(n, rng);
}

}  // namespace ssimd

#endif  // SSIMD_ENGINE_GPU_SSIM_LIKE_TERMS_H_
