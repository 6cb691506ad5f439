#include "engine/cpu/integer_ssim.h"

#include <algorithm>
#include <vector>

#include "engine/cpu/sample_plane.h"
#include "engine/scratch.h"
#include "kernels/db.h"
#include "kernels/integer_ssim_math.h"
#include "kernels/ssim_constants.h"

namespace ssimd {
namespace {

int64_t RowGrain(int64_t rows, int threads) {
  return std::max<int64_t>(1, rows / (4 * static_cast<int64_t>(threads)));
}

// The window taps as plain values, so the inner loops multiply by constants.
struct Taps {
  int64_t k[kIntegerTaps];
  Taps() {
    for (int t = 0; t < kIntegerTaps; ++t) k[t] = IntegerTap(t);
  }
};

// Horizontal moments of one row: the 9-tap window clipped at the row's ends (docs/numerics.md §11).
// Integer sums are exact, so splitting off the edge columns changes nothing.
template <typename Sample>
void HorizontalRow(const Sample* ref, const Sample* dist, int width, const Taps& taps,
                   IntegerMoments* out) {
  auto clipped = [&](int x) {
    IntegerMoments m;
    for (int t = 0; t < kIntegerTaps; ++t) {
      const int c = x + t - kIntegerRadius;
      if (c < 0 || c >= width) continue;
      AccumulateMoments(m, taps.k[t], ref[c], dist[c]);
    }
    out[x] = m;
  };
  const int interior_end = width - kIntegerRadius;
  int x = 0;
  for (; x < kIntegerRadius && x < width; ++x) clipped(x);
  for (; x < interior_end; ++x) {
    IntegerMoments m;
    const Sample* r = ref + x - kIntegerRadius;
    const Sample* d = dist + x - kIntegerRadius;
    for (int t = 0; t < kIntegerTaps; ++t) AccumulateMoments(m, taps.k[t], r[t], d[t]);
    out[x] = m;
  }
  for (; x < width; ++x) clipped(x);
}

// Horizontal moments of a band of rows, (band height + 8) rows of the picture.
struct MomentBand : BandRows {
  std::vector<IntegerMoments> rows;

  IntegerMoments* Row(int64_t r) { return rows.data() + static_cast<size_t>(r - first_row) * width; }
  const IntegerMoments* Row(int64_t r) const {
    return rows.data() + static_cast<size_t>(r - first_row) * width;
  }
  void Slide(int64_t from) { BandRows::Slide(from, rows); }
};

constexpr int64_t kBandPixels = int64_t{1} << 18;

}  // namespace

double ComputeIntegerSsim(const LumaView& reference, const LumaView& distorted, ThreadPool& pool,
                          int64_t band_rows) {
  const SamplePlane ref(reference);
  const SamplePlane dist(distorted);
  const int w = ref.width();
  const int h = ref.height();
  const double peak_squared = IntegerSsimPeakSquared(ref.bit_depth());
  const Taps taps;

  // libvmaf also sums every pixel's window weight W in binary64, in raster order. Each W and every
  // partial sum is an integer below 2^53 (W <= 65536, at most 2^28 pixels), so that sum is exact
  // in any order: it equals (sum of row weights) * (sum of column weights), formed in int64.
  int64_t column_weights = 0;
  for (int x = 0; x < w; ++x) column_weights += ClippedWindowWeight(x, w);
  int64_t row_weights = 0;
  for (int y = 0; y < h; ++y) row_weights += ClippedWindowWeight(y, h);
  const double weight_sum = static_cast<double>(row_weights * column_weights);

  if (band_rows <= 0) band_rows = std::max<int64_t>(16, kBandPixels / w);
  band_rows = std::min<int64_t>(h, band_rows);
  // One calling thread's buffers, reused from frame to frame. The lambdas below must see them
  // through these references: a thread_local named in a lambda is the running thread's own.
  thread_local MomentBand kept_band;
  thread_local std::vector<double> kept_terms;
  MomentBand& band = kept_band;
  std::vector<double>& terms = kept_terms;
  band.width = w;
  band.first_row = band.end_row = 0;
  GrowTo(band.rows, static_cast<size_t>(band_rows + 2 * kIntegerRadius) * w);
  GrowTo(terms, static_cast<size_t>(band_rows) * w);

  double ssim_sum = 0.0;
  for (int64_t y0 = 0; y0 < h; y0 += band_rows) {
    const int64_t y1 = std::min<int64_t>(h, y0 + band_rows);
    band.Slide(std::max<int64_t>(0, y0 - kIntegerRadius));
    const int64_t need_end = std::min<int64_t>(h, y1 + kIntegerRadius);
    const int64_t new_begin = band.end_row;
    pool.ParallelFor(need_end - new_begin, RowGrain(need_end - new_begin, pool.threads()),
                     [&](int64_t begin, int64_t end) {
                       for (int64_t i = begin; i < end; ++i) {
                         const int64_t r = new_begin + i;
                         IntegerMoments* out = band.Row(r);
                         if (ref.wide()) {
                           HorizontalRow(ref.words() + r * ref.stride(),
                                         dist.words() + r * dist.stride(), w, taps, out);
                         } else {
                           HorizontalRow(ref.bytes() + r * ref.stride(),
                                         dist.bytes() + r * dist.stride(), w, taps, out);
                         }
                       }
                     });
    band.end_row = need_end;
    pool.ParallelFor(y1 - y0, RowGrain(y1 - y0, pool.threads()), [&](int64_t begin, int64_t end) {
      const IntegerMoments* rows[kIntegerTaps];
      int64_t weights[kIntegerTaps];
      for (int64_t i = begin; i < end; ++i) {
        const int64_t y = y0 + i;
        // The rows of the clipped vertical window and their taps.
        int n = 0;
        for (int t = 0; t < kIntegerTaps; ++t) {
          const int64_t r = y + t - kIntegerRadius;
          if (r < 0 || r >= h) continue;
          rows[n] = band.Row(r);
          weights[n++] = taps.k[t];
        }
        double* out = terms.data() + static_cast<size_t>(i) * w;
        for (int x = 0; x < w; ++x) {
          IntegerMoments m;
          for (int j = 0; j < n; ++j) AccumulateWeighted(m, weights[j], rows[j][x]);
          out[x] = IntegerSsimPixel(m, peak_squared);
        }
      }
    });
    // libvmaf's binary64 sum of the terms, in raster order, on one thread.
    const size_t n = static_cast<size_t>(y1 - y0) * w;
    for (size_t i = 0; i < n; ++i) ssim_sum += terms[i];
  }
  if (BytesOf(band.rows) + BytesOf(terms) > kKeptScratchBytes) {
    band.rows = std::vector<IntegerMoments>();
    terms = std::vector<double>();
  }
  return ssim_sum / weight_sum;
}

void AddIntegerSsimScore(const IntegerSsimOptions& options, double score, FrameScores& scores) {
  scores["ssim"] = options.enable_db ? IntegerSsimToDb(score) : score;
}

}  // namespace ssimd
