#include "engine/cpu/float_ssim.h"

#include <algorithm>

#include "engine/scratch.h"

#include "kernels/db.h"
#include "kernels/decimate.h"
#include "kernels/float_ssim_math.h"
#include "kernels/ssim_constants.h"

namespace ssimd {
namespace {

// Rows per parallel chunk: enough work to amortise the hand-off, few enough to balance.
int64_t RowGrain(int64_t rows, int threads) {
  return std::max<int64_t>(1, rows / (4 * static_cast<int64_t>(threads)));
}

template <typename Sample>
void FillRows(const Sample* samples, size_t stride, const SamplePlane& plane, int factor,
              FloatPlane& out, int64_t row_begin, int64_t row_end) {
  const int bit_depth = plane.bit_depth();
  if (factor <= 1) {
    for (int64_t y = row_begin; y < row_end; ++y) {
      float* dst = out.samples.data() + y * out.width;
      for (int x = 0; x < out.width; ++x) {
        dst[x] = LoadScaled(samples, stride, x, static_cast<int>(y), bit_depth);
      }
    }
    return;
  }
  const float tap = DecimationTapWeight(factor);
  for (int64_t y = row_begin; y < row_end; ++y) {
    float* dst = out.samples.data() + y * out.width;
    for (int x = 0; x < out.width; ++x) {
      dst[x] = DecimatePixel(samples, stride, plane.width(), plane.height(), bit_depth, factor, tap,
                             x, static_cast<int>(y));
    }
  }
}

// The five horizontally filtered planes of a band of rows (valid width wide).
struct HorizontalBand : BandRows {
  std::vector<float> mu_r, mu_d, rr, dd, rd;

  void Reset(int valid_width, int rows) {
    width = valid_width;
    first_row = end_row = 0;
    const size_t n = static_cast<size_t>(rows) * width;
    for (std::vector<float>* p : {&mu_r, &mu_d, &rr, &dd, &rd}) GrowTo(*p, n);
  }
  size_t Bytes() const {
    return BytesOf(mu_r) + BytesOf(mu_d) + BytesOf(rr) + BytesOf(dd) + BytesOf(rd);
  }
  void Slide(int64_t from) { BandRows::Slide(from, mu_r, mu_d, rr, dd, rd); }
};

// Horizontal 11-tap pass of one plane row r into the band (docs/numerics.md §5); products f32(R*R)
// etc. are formed per sample first, as libvmaf does.
void HorizontalRow(const FloatPlane& ref, const FloatPlane& dist, int64_t r, HorizontalBand& band,
                   std::vector<float>& scratch) {
  const int w = ref.width;
  float* rr = GrowTo(scratch, 3 * static_cast<size_t>(w));
  float* dd = rr + w;
  float* rd = dd + w;
  const float* a = ref.samples.data() + r * w;
  const float* b = dist.samples.data() + r * w;
  for (int x = 0; x < w; ++x) {
    rr[x] = a[x] * a[x];
    dd[x] = b[x] * b[x];
    rd[x] = a[x] * b[x];
  }
  const size_t out = static_cast<size_t>(r - band.first_row) * band.width;
  float v[kGaussianTaps];
  auto dot = [&v](const float* src) {
    for (int t = 0; t < kGaussianTaps; ++t) v[t] = src[t];
    return GaussianDot(v);
  };
  for (int x = 0; x < band.width; ++x) {
    band.mu_r[out + x] = dot(a + x);
    band.mu_d[out + x] = dot(b + x);
    band.rr[out + x] = dot(rr + x);
    band.dd[out + x] = dot(dd + x);
    band.rd[out + x] = dot(rd + x);
  }
}

// Per-pixel terms of one band of valid rows, in row-major order.
struct TermBand {
  std::vector<double> ssim, l, c, s;
  size_t Bytes() const { return BytesOf(ssim) + BytesOf(l) + BytesOf(c) + BytesOf(s); }
};

// One calling thread's buffers for the window's passes, reused from frame to frame.
struct PassWorkspace {
  HorizontalBand band;
  TermBand terms;
  size_t Bytes() const { return band.Bytes() + terms.Bytes(); }
};

void VerticalRow(const HorizontalBand& band, int64_t y, int64_t band_first_y, bool with_lcs,
                 TermBand& terms) {
  const int w = band.width;
  const size_t in = static_cast<size_t>(y - band.first_row) * w;
  const size_t out = static_cast<size_t>(y - band_first_y) * w;
  float v[kGaussianTaps];
  auto dot = [&v, w](const float* src) {
    for (int t = 0; t < kGaussianTaps; ++t) v[t] = src[static_cast<size_t>(t) * w];
    return GaussianDot(v);
  };
  for (int x = 0; x < w; ++x) {
    GaussianMoments m;
    m.mu_r = dot(band.mu_r.data() + in + x);
    m.mu_d = dot(band.mu_d.data() + in + x);
    m.rr = dot(band.rr.data() + in + x);
    m.dd = dot(band.dd.data() + in + x);
    m.rd = dot(band.rd.data() + in + x);
    const SsimPixelTerms t = FloatSsimPixel(m);
    terms.ssim[out + x] = t.ssim;
    if (with_lcs) {
      terms.l[out + x] = t.l;
      terms.c[out + x] = t.c;
      terms.s[out + x] = t.s;
    }
  }
}

// Floats per horizontal plane in one band (1 MiB): bounds the memory of a frame at any size.
constexpr int64_t kBandFloats = int64_t{1} << 18;

}  // namespace

int FloatSsimScale(int scale_option, int width, int height) {
  return scale_option > 0 ? scale_option : AutomaticScale(width, height);
}

void PrepareFloatPlane(const SamplePlane& plane, int factor, ThreadPool& pool, FloatPlane& out) {
  out.width = DecimatedSize(plane.width(), factor);
  out.height = DecimatedSize(plane.height(), factor);
  GrowTo(out.samples, static_cast<size_t>(out.width) * out.height);
  pool.ParallelFor(out.height, RowGrain(out.height, pool.threads()),
                   [&](int64_t begin, int64_t end) {
                     if (plane.wide()) {
                       FillRows(plane.words(), plane.stride(), plane, factor, out, begin, end);
                     } else {
                       FillRows(plane.bytes(), plane.stride(), plane, factor, out, begin, end);
                     }
                   });
}

FloatPlane PrepareFloatPlane(const SamplePlane& plane, int factor, ThreadPool& pool) {
  FloatPlane out;
  PrepareFloatPlane(plane, factor, pool, out);
  return out;
}

FloatSsimMeans FloatSsimOfPlanes(const FloatPlane& ref, const FloatPlane& dist, bool with_lcs,
                                 ThreadPool& pool, int64_t band_rows) {
  // Reused from frame to frame; the lambdas below reach it only through local references (a
  // thread_local named in a lambda would be the worker thread's own).
  thread_local PassWorkspace kept;
  PassWorkspace& workspace = kept;
  const int valid_w = ref.width - (kGaussianTaps - 1);
  const int valid_h = ref.height - (kGaussianTaps - 1);
  double ssim_sum = 0.0, l_sum = 0.0, c_sum = 0.0, s_sum = 0.0;

  if (valid_w > 0 && valid_h > 0) {
    if (band_rows <= 0) band_rows = std::max<int64_t>(32, kBandFloats / valid_w);
    band_rows = std::min<int64_t>(valid_h, band_rows);
    HorizontalBand& band = workspace.band;
    band.Reset(valid_w, static_cast<int>(band_rows) + kGaussianTaps - 1);
    TermBand& terms = workspace.terms;
    const size_t term_count = static_cast<size_t>(band_rows) * valid_w;
    GrowTo(terms.ssim, term_count);
    if (with_lcs) {
      GrowTo(terms.l, term_count);
      GrowTo(terms.c, term_count);
      GrowTo(terms.s, term_count);
    }
    for (int64_t y0 = 0; y0 < valid_h; y0 += band_rows) {
      const int64_t y1 = std::min<int64_t>(valid_h, y0 + band_rows);
      // Plane rows [y0, y1 + 10) feed this band's outputs; the overlap with the last band stays.
      band.Slide(y0);
      const int64_t need_end = y1 + kGaussianTaps - 1;
      const int64_t new_begin = band.end_row;
      pool.ParallelFor(need_end - new_begin, RowGrain(need_end - new_begin, pool.threads()),
                       [&](int64_t begin, int64_t end) {
                         thread_local std::vector<float> scratch;  // one row's products
                         for (int64_t i = begin; i < end; ++i) {
                           HorizontalRow(ref, dist, new_begin + i, band, scratch);
                         }
                       });
      band.end_row = need_end;
      pool.ParallelFor(y1 - y0, RowGrain(y1 - y0, pool.threads()),
                       [&](int64_t begin, int64_t end) {
                         for (int64_t i = begin; i < end; ++i) {
                           VerticalRow(band, y0 + i, y0, with_lcs, terms);
                         }
                       });
      // libvmaf's sums: one binary64 accumulator each, raster order, never reassociated.
      const size_t n = static_cast<size_t>(y1 - y0) * valid_w;
      for (size_t i = 0; i < n; ++i) ssim_sum += terms.ssim[i];
      if (with_lcs) {
        for (size_t i = 0; i < n; ++i) l_sum += terms.l[i];
        for (size_t i = 0; i < n; ++i) c_sum += terms.c[i];
        for (size_t i = 0; i < n; ++i) s_sum += terms.s[i];
      }
    }
  }
  if (workspace.Bytes() > kKeptScratchBytes) workspace = PassWorkspace();

  FloatSsimMeans means;
  means.ssim = FloatSsimMean(ssim_sum, valid_w, valid_h);
  if (with_lcs) {
    means.l = FloatSsimMean(l_sum, valid_w, valid_h);
    means.c = FloatSsimMean(c_sum, valid_w, valid_h);
    means.s = FloatSsimMean(s_sum, valid_w, valid_h);
  }
  return means;
}

FloatSsimMeans ComputeFloatSsim(const LumaView& reference, const LumaView& distorted,
                                int scale_option, bool with_lcs, ThreadPool& pool,
                                int64_t band_rows) {
  const int factor = FloatSsimScale(scale_option, reference.width, reference.height);
  // The prepared planes, reused from frame to frame.
  struct Planes {
    FloatPlane ref, dist;
  };
  thread_local Planes kept;
  Planes& planes = kept;
  PrepareFloatPlane(SamplePlane(reference), factor, pool, planes.ref);
  PrepareFloatPlane(SamplePlane(distorted), factor, pool, planes.dist);
  const FloatSsimMeans means = FloatSsimOfPlanes(planes.ref, planes.dist, with_lcs, pool, band_rows);
  if (BytesOf(planes.ref.samples) + BytesOf(planes.dist.samples) > kKeptScratchBytes) {
    planes = Planes();
  }
  return means;
}

void AddFloatSsimScores(const FloatSsimOptions& options, const Geometry& geometry,
                        const FloatSsimMeans& means, FrameScores& scores) {
  double value = means.ssim;
  if (options.enable_db) {
    value = FloatSsimToDb(value, FloatSsimMaxDb(options.clip_db, geometry.bit_depth,
                                                geometry.width, geometry.height));
  }
  scores["float_ssim"] = value;
  if (options.enable_lcs) {
    scores["float_ssim_l"] = means.l;
    scores["float_ssim_c"] = means.c;
    scores["float_ssim_s"] = means.s;
  }
}

}  // namespace ssimd
