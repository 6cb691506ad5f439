#include "engine/cpu/ms_ssim.h"

#include <algorithm>
#include <cstdint>

#include "absl/strings/str_format.h"
#include "base/status_macros.h"
#include "engine/cpu/sample_plane.h"
#include "engine/scratch.h"
#include "kernels/decimate.h"
#include "kernels/float_ssim_math.h"
#include "kernels/ms_ssim_math.h"
#include "kernels/ssim_constants.h"

namespace ssimd {
namespace {

// A tightly packed binary32 plane; `samples` may hold more than width * height (reused storage).
struct Plane {
  int width = 0;
  int height = 0;
  std::vector<float> samples;

  void Resize(int w, int h) {
    width = w;
    height = h;
    GrowTo(samples, static_cast<size_t>(w) * static_cast<size_t>(h));
  }
  float* Row(int64_t y) { return samples.data() + static_cast<size_t>(y) * width; }
  const float* Row(int64_t y) const { return samples.data() + static_cast<size_t>(y) * width; }
};

// Rows per parallel chunk: enough work to amortise the hand-off, few enough to balance.
int64_t RowGrain(int64_t rows, int threads) {
  return std::max<int64_t>(1, rows / (4 * static_cast<int64_t>(threads)));
}

// Scale 0: each sample on libvmaf's 8-bit scale (an exact division by 2^(b-8)).
template <typename Sample>
void LoadRows(const Sample* samples, size_t stride, int bit_depth, Plane& out, int64_t begin,
              int64_t end) {
  for (int64_t y = begin; y < end; ++y) {
    float* dst = out.Row(y);
    for (int x = 0; x < out.width; ++x) {
      dst[x] = LoadScaled(samples, stride, x, static_cast<int>(y), bit_depth);
    }
  }
}

void LoadPlane(const LumaView& view, ThreadPool& pool, Plane& out) {
  const SamplePlane plane(view);
  out.Resize(plane.width(), plane.height());
  pool.ParallelFor(out.height, RowGrain(out.height, pool.threads()),
                   [&](int64_t begin, int64_t end) {
                     if (plane.wide()) {
                       LoadRows(plane.words(), plane.stride(), plane.bit_depth(), out, begin, end);
                     } else {
                       LoadRows(plane.bytes(), plane.stride(), plane.bit_depth(), out, begin, end);
                     }
                   });
}

// The next scale of `in`, low-passed and sampled every other pixel.
void DecimatePlane(const Plane& in, ThreadPool& pool, Plane& out) {
  out.Resize(MsSsimNextSide(in.width), MsSsimNextSide(in.height));
  pool.ParallelFor(out.height, RowGrain(out.height, pool.threads()),
                   [&](int64_t begin, int64_t end) {
                     for (int64_t y = begin; y < end; ++y) {
                       float* dst = out.Row(y);
                       for (int x = 0; x < out.width; ++x) {
                         dst[x] = LowPassDecimatePixel(in.samples.data(), in.width, in.height, x,
                                                       static_cast<int>(y));
                       }
                     }
                   });
}

// The five horizontally filtered quantities of a band of plane rows, valid width wide.
struct HorizontalBand : BandRows {
  std::vector<float> mu_r, mu_d, rr, dd, rd;

  void Reset(int valid_width, int64_t rows) {
    width = valid_width;
    first_row = end_row = 0;
    const size_t n = static_cast<size_t>(rows) * static_cast<size_t>(valid_width);
    for (std::vector<float>* p : {&mu_r, &mu_d, &rr, &dd, &rd}) GrowTo(*p, n);
  }
  void Slide(int64_t from) { BandRows::Slide(from, mu_r, mu_d, rr, dd, rd); }
  size_t Bytes() const {
    return BytesOf(mu_r) + BytesOf(mu_d) + BytesOf(rr) + BytesOf(dd) + BytesOf(rd);
  }
};

// The 11-tap horizontal pass of plane row r. As libvmaf does, the products R*R, D*D and R*D are
// rounded to binary32 per sample before they are filtered.
void HorizontalRow(const Plane& ref, const Plane& dist, int64_t r, HorizontalBand& band,
                   std::vector<float>& scratch) {
  const int w = ref.width;
  float* rr = GrowTo(scratch, 3 * static_cast<size_t>(w));
  float* dd = rr + w;
  float* rd = dd + w;
  const float* a = ref.Row(r);
  const float* b = dist.Row(r);
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

// Per-pixel l, c and s of a band of valid rows, row-major.
struct TermBand {
  std::vector<double> l, c, s;
  size_t Bytes() const { return BytesOf(l) + BytesOf(c) + BytesOf(s); }
};

// The vertical pass and the per-pixel terms of valid row y (band_first_y: the term band's row 0).
void VerticalRow(const HorizontalBand& band, int64_t y, int64_t band_first_y, TermBand& terms) {
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
    terms.l[out + x] = t.l;
    terms.c[out + x] = t.c;
    terms.s[out + x] = t.s;
  }
}

// One calling thread's buffers, kept from frame to frame (engine/scratch.h says why).
struct Workspace {
  Plane ref[kMsSsimScales];
  Plane dist[kMsSsimScales];
  HorizontalBand band;
  TermBand terms;

  size_t Bytes() const {
    size_t bytes = band.Bytes() + terms.Bytes();
    for (int i = 0; i < kMsSsimScales; ++i) {
      bytes += BytesOf(ref[i].samples) + BytesOf(dist[i].samples);
    }
    return bytes;
  }
};

// Floats per horizontal plane in one band (1 MiB): bounds the band memory at any size.
constexpr int64_t kBandFloats = int64_t{1} << 18;

struct ScaleMeans {
  float l = 0;
  float c = 0;
  float s = 0;
};

// One scale's SSIM pass over the valid region ((w-10) x (h-10), never empty at a supported size),
// band by band. Each of l, c and s is summed in one binary64 accumulator in raster order, as
// libvmaf does, whatever the band height or the thread count.
ScaleMeans ScaleSsim(const Plane& ref, const Plane& dist, ThreadPool& pool, Workspace& ws) {
  const int valid_w = ref.width - (kGaussianTaps - 1);
  const int valid_h = ref.height - (kGaussianTaps - 1);
  const int64_t band_rows =
      std::min<int64_t>(valid_h, std::max<int64_t>(32, kBandFloats / valid_w));
  HorizontalBand& band = ws.band;
  band.Reset(valid_w, band_rows + kGaussianTaps - 1);
  TermBand& terms = ws.terms;
  const size_t term_count = static_cast<size_t>(band_rows) * static_cast<size_t>(valid_w);
  GrowTo(terms.l, term_count);
  GrowTo(terms.c, term_count);
  GrowTo(terms.s, term_count);
  double l_sum = 0.0, c_sum = 0.0, s_sum = 0.0;
  for (int64_t y0 = 0; y0 < valid_h; y0 += band_rows) {
    const int64_t y1 = std::min<int64_t>(valid_h, y0 + band_rows);
    // Plane rows [y0, y1 + 10) feed this band; those shared with the last band are kept.
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
    pool.ParallelFor(y1 - y0, RowGrain(y1 - y0, pool.threads()), [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) VerticalRow(band, y0 + i, y0, terms);
    });
    const size_t n = static_cast<size_t>(y1 - y0) * static_cast<size_t>(valid_w);
    for (size_t i = 0; i < n; ++i) l_sum += terms.l[i];
    for (size_t i = 0; i < n; ++i) c_sum += terms.c[i];
    for (size_t i = 0; i < n; ++i) s_sum += terms.s[i];
  }
  ScaleMeans means;
  means.l = MsSsimScaleMean(l_sum, valid_w, valid_h);
  means.c = MsSsimScaleMean(c_sum, valid_w, valid_h);
  means.s = MsSsimScaleMean(s_sum, valid_w, valid_h);
  return means;
}

absl::Status CheckViews(const LumaView& reference, const LumaView& distorted) {
  const Geometry geometry{reference.width, reference.height, reference.bit_depth,
                          ChromaFormat::k400};
  SSIMD_RETURN_IF_ERROR(ValidateGeometry(geometry));
  SSIMD_RETURN_IF_ERROR(CheckLumaView(geometry, reference, "reference"));
  SSIMD_RETURN_IF_ERROR(CheckLumaView(geometry, distorted, "distorted"));
  return CheckFloatMsSsimSize(reference.width, reference.height);
}

}  // namespace

absl::StatusOr<FloatMsSsimValues> ComputeFloatMsSsim(const LumaView& reference,
                                                     const LumaView& distorted, ThreadPool& pool) {
  SSIMD_RETURN_IF_ERROR(CheckViews(reference, distorted));
  // Reused from frame to frame; the lambdas reach it only through references (a thread_local
  // named inside a lambda would be the worker thread's own).
  thread_local Workspace kept;
  Workspace& ws = kept;
  LoadPlane(reference, pool, ws.ref[0]);
  LoadPlane(distorted, pool, ws.dist[0]);
  for (int scale = 1; scale < kMsSsimScales; ++scale) {
    DecimatePlane(ws.ref[scale - 1], pool, ws.ref[scale]);
    DecimatePlane(ws.dist[scale - 1], pool, ws.dist[scale]);
  }
  float l[kMsSsimScales], c[kMsSsimScales], s[kMsSsimScales];
  for (int scale = 0; scale < kMsSsimScales; ++scale) {
    const ScaleMeans means = ScaleSsim(ws.ref[scale], ws.dist[scale], pool, ws);
    l[scale] = means.l;
    c[scale] = means.c;
    s[scale] = means.s;
  }
  if (ws.Bytes() > kKeptScratchBytes) ws = Workspace();

  return CombineFloatMsSsim(l, c, s);
}

absl::StatusOr<FloatMsSsimValues> ComputeFloatMsSsim(const LumaView& reference,
                                                     const LumaView& distorted) {
  ThreadPool caller_only(1, ThreadPool::Sizing::kWithCaller);  // starts no thread
  return ComputeFloatMsSsim(reference, distorted, caller_only);
}

}  // namespace ssimd
