#include "engine/cpu/ms_ssim.h"

#include <algorithm>
#include <cstdint>

#include "absl/strings/str_format.h"
#include "base/status_macros.h"
#include "engine/cpu/float_ssim.h"
#include "engine/cpu/sample_plane.h"
#include "engine/scratch.h"
#include "kernels/decimate.h"
#include "kernels/float_ssim_math.h"
#include "kernels/ms_ssim_math.h"
#include "kernels/ssim_constants.h"

namespace ssimd {
namespace {

// Sizes `plane` w x h; its storage may stay larger (reused from frame to frame).
void Resize(FloatPlane& plane, int w, int h) {
  plane.width = w;
  plane.height = h;
  GrowTo(plane.samples, static_cast<size_t>(w) * static_cast<size_t>(h));
}

float* Row(FloatPlane& plane, int64_t y) {
  return plane.samples.data() + static_cast<size_t>(y) * plane.width;
}

// Rows per parallel chunk: enough work to amortise the hand-off, few enough to balance.
int64_t RowGrain(int64_t rows, int threads) {
  return std::max<int64_t>(1, rows / (4 * static_cast<int64_t>(threads)));
}

// Scale 0: each sample on libvmaf's 8-bit scale (an exact division by 2^(b-8)).
template <typename Sample>
void LoadRows(const Sample* samples, size_t stride, int bit_depth, FloatPlane& out,
              int64_t begin, int64_t end) {
  for (int64_t y = begin; y < end; ++y) {
    float* dst = Row(out, y);
    for (int x = 0; x < out.width; ++x) {
      dst[x] = LoadScaled(samples, stride, x, static_cast<int>(y), bit_depth);
    }
  }
}

void LoadPlane(const LumaView& view, ThreadPool& pool, FloatPlane& out) {
  const SamplePlane plane(view);
  Resize(out, plane.width(), plane.height());
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
void DecimatePlane(const FloatPlane& in, ThreadPool& pool, FloatPlane& out) {
  Resize(out, MsSsimNextSide(in.width), MsSsimNextSide(in.height));
  pool.ParallelFor(out.height, RowGrain(out.height, pool.threads()),
                   [&](int64_t begin, int64_t end) {
                     for (int64_t y = begin; y < end; ++y) {
                       float* dst = Row(out, y);
                       for (int x = 0; x < out.width; ++x) {
                         dst[x] = LowPassDecimatePixel(in.samples.data(), in.width, in.height, x,
                                                       static_cast<int>(y));
                       }
                     }
                   });
}

// One calling thread's pyramid, kept from frame to frame (engine/scratch.h says why).
struct Workspace {
  FloatPlane ref[kMsSsimScales];
  FloatPlane dist[kMsSsimScales];

  size_t Bytes() const {
    size_t bytes = 0;
    for (int i = 0; i < kMsSsimScales; ++i) {
      bytes += BytesOf(ref[i].samples) + BytesOf(dist[i].samples);
    }
    return bytes;
  }
};

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
  // Each scale is float_ssim's window over that scale's planes, as in libvmaf; its means are
  // binary32 values widened, so narrowing them back is exact.
  float l[kMsSsimScales], c[kMsSsimScales], s[kMsSsimScales];
  for (int scale = 0; scale < kMsSsimScales; ++scale) {
    const FloatSsimMeans means =
        FloatSsimOfPlanes(ws.ref[scale], ws.dist[scale], /*with_lcs=*/true, pool);
    l[scale] = static_cast<float>(means.l);
    c[scale] = static_cast<float>(means.c);
    s[scale] = static_cast<float>(means.s);
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
