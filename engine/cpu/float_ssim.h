// libvmaf's float_ssim on the CPU, bit for bit (docs/numerics.md §2-§9). All
// per-sample arithmetic comes from kernels/ (decimate.h, float_ssim_math.h) so the GPU shares it;
// this file only arranges the passes, the parallelism and the raster-order sums.
#ifndef SSIMD_ENGINE_CPU_FLOAT_SSIM_H_
#define SSIMD_ENGINE_CPU_FLOAT_SSIM_H_

#include <cstdint>
#include <vector>

#include "base/thread_pool.h"
#include "engine/cpu/sample_plane.h"
#include "engine/features.h"
#include "engine/picture.h"

namespace ssimd {

// A binary32 plane, tightly packed.
struct FloatPlane {
  int width = 0;
  int height = 0;
  std::vector<float> samples;
};

// The decimation factor float_ssim uses: the forced option when > 0, else libvmaf's automatic
// scale (which is not capped at 10).
int FloatSsimScale(int scale_option, int width, int height);

// The plane float_ssim filters: samples scaled to 0..255.996 and, for factor > 1, low-passed and
// decimated to DecimatedSize(w, f) x DecimatedSize(h, f) exactly as libvmaf's iqa_decimate().
FloatPlane PrepareFloatPlane(const SamplePlane& plane, int factor, ThreadPool& pool);
// The same into `out`, reusing its storage (which may stay larger than width * height).
void PrepareFloatPlane(const SamplePlane& plane, int factor, ThreadPool& pool, FloatPlane& out);

// The four frame means, each a binary32 value widened to double. l, c and s are only computed
// when asked for (they are 0 otherwise).
struct FloatSsimMeans {
  double ssim = 0;
  double l = 0;
  double c = 0;
  double s = 0;
};

// float_ssim's window over two prepared planes of one size (PrepareFloatPlane's, or any binary32
// planes on libvmaf's 8-bit scale, such as float_ms_ssim's scales): the means of the per-pixel
// terms over the valid region, each summed in raster order in binary64 and rounded to binary32.
// Valid rows go in bands of `band_rows` (0: about 2^18 samples a band); the result never depends
// on it, nor on the thread count.
FloatSsimMeans FloatSsimOfPlanes(const FloatPlane& reference, const FloatPlane& distorted,
                                 bool with_lcs, ThreadPool& pool, int64_t band_rows = 0);

// The valid rows are processed in bands of `band_rows` (0: about 2^18
// samples a band); the result never depends on it, nor on the thread count.
FloatSsimMeans ComputeFloatSsim(const LumaView& reference, const LumaView& distorted,
                                int scale_option, bool with_lcs, ThreadPool& pool,
                                int64_t band_rows = 0);

// Adds float_ssim (in dB when enable_db, capped when clip_db) and, with enable_lcs,
// float_ssim_l/_c/_s (never dB) to `scores`. `geometry` is the full-resolution picture.
void AddFloatSsimScores(const FloatSsimOptions& options, const Geometry& geometry,
                        const FloatSsimMeans& means, FrameScores& scores);

}  // namespace ssimd

#endif  // SSIMD_ENGINE_CPU_FLOAT_SSIM_H_
