#include "engine/luma_scale_plan.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace ssimd {
namespace {

// Trimming stops once the dropped taps add up to this fraction of the unit weight.
constexpr double kTrimCutoff = 0.002;
// Filters this long make libswscale scale in two passes (a cascade) when accurate_rnd is set;
// the plan refuses them whatever the flags.
constexpr int kLongestFilter = 256 * 16 / 24;
// Luma sample positions are centred: both pictures' first sample sits at 128/256.
constexpr int64_t kCentre = 128;
constexpr double kPi = 3.14159265358979323846;

int FloorLog2(int v) {
  int r = 0;
  v |= 1;
  while (v >>= 1) ++r;
  return r;
}

int64_t RoundedDivide(int64_t a, int64_t b) { return (a >= 0 ? a + (b >> 1) : a - (b >> 1)) / b; }

// Bicubic kernel in 2^30 fixed point (B = 0, C = 0.6 as libswscale's defaults), for a distance
// `d` in 2^30 units: the integer polynomial libswscale evaluates.
int64_t BicubicWeight(int64_t d) {
  constexpr int64_t kB = 0;
  const int64_t c = static_cast<int64_t>(0.6 * (1 << 24));
  if (d >= (int64_t{1} << 31)) return 0;
  const int64_t dd = (d * d) >> 30;
  const int64_t ddd = (dd * d) >> 30;
  constexpr int64_t kOne24 = int64_t{1} << 24;
  if (d < (int64_t{1} << 30)) {
    return (12 * kOne24 - 9 * kB - 6 * c) * ddd + (-18 * kOne24 + 12 * kB + 6 * c) * dd +
           (6 * kOne24 - 2 * kB) * (int64_t{1} << 30);
  }
  return (-kB - 6 * c) * ddd + (6 * kB + 30 * c) * dd + (-12 * kB - 48 * c) * d +
         (8 * kB + 24 * c) * (int64_t{1} << 30);
}

// libswscale's "bicubic spline": a cubic on [0, 1] continued piecewise, evaluated in binary64.
double SplineWeight(double a, double b, double c, double d, double distance) {
  while (distance > 1.0) {
    const double nb = b + 2.0 * c + 3.0 * d;
    const double nc = c + 3.0 * d;
    const double nd = -b - 3.0 * c - 6.0 * d;
    a = 0.0;
    b = nb;
    c = nc;
    d = nd;
    distance -= 1.0;
  }
  return ((d * distance + c) * distance + b) * distance + a;
}

// The kernel's weight at distance `d` (2^30 units) scaled to `one` (an int64 power of two).
int64_t KernelWeight(ScalerKind kind, int64_t d, int64_t one) {
  const double distance = static_cast<double>(d) * (1.0 / (1 << 30));
  switch (kind) {
    case ScalerKind::kBicubic:
      return BicubicWeight(d) / ((int64_t{1} << 54) / one);
    case ScalerKind::kBilinear: {
      const int64_t w = (int64_t{1} << 30) - d;
      return (w < 0 ? 0 : w) * (one >> 30);
    }
    case ScalerKind::kLanczos: {
      constexpr double kLobes = 3.0;
      if (distance > kLobes) return 0;
      const double w = d != 0 ? std::sin(distance * kPi) * std::sin(distance * kPi / kLobes) /
                                    (distance * distance * kPi * kPi / kLobes)
                              : 1.0;
      return static_cast<int64_t>(w * static_cast<double>(one));
    }
    case ScalerKind::kSpline: {
      constexpr double kP = -2.196152422706632;
      return static_cast<int64_t>(SplineWeight(1.0, 0.0, kP, -kP - 1.0, distance) *
                                  static_cast<double>(one));
    }
    case ScalerKind::kNeighbor:
      break;
  }
  return 0;
}

int SizeFactor(ScalerKind kind) {
  switch (kind) {
    case ScalerKind::kBicubic: return 4;
    case ScalerKind::kBilinear: return 2;
    case ScalerKind::kLanczos: return 6;
    case ScalerKind::kSpline: return 20;
    case ScalerKind::kNeighbor: return 1;
  }
  return 4;
}

// Kernel weights before trimming: `taps` per output sample in `weights`, first input in `first`.
void InitialWeights(int src_size, int dst_size, ScalerKind kind, int64_t increment, int64_t one,
                    int* taps, std::vector<int64_t>* weights, std::vector<int32_t>* first) {
  first->assign(dst_size, 0);
  if (std::abs(increment - 0x10000) < 10) {  // the same size: one tap
    *taps = 1;
    weights->assign(dst_size, one);
    for (int i = 0; i < dst_size; ++i) (*first)[i] = i;
    return;
  }
  if (kind == ScalerKind::kNeighbor) {
    *taps = 1;
    weights->assign(dst_size, one);
    int64_t position = ((kCentre * increment) >> 8) - ((kCentre * 0x8000) >> 7);
    for (int i = 0; i < dst_size; ++i) {
      (*first)[i] = static_cast<int32_t>((position + (1 << 15)) >> 16);
      position += increment;
    }
    return;
  }
  const int factor = SizeFactor(kind);
  int n = increment <= (1 << 16) ? 1 + factor : 1 + (factor * src_size + dst_size - 1) / dst_size;
  n = std::max(std::min(n, src_size - 2), 1);
  *taps = n;
  weights->assign(static_cast<size_t>(dst_size) * n, 0);
  int64_t position = ((kCentre * increment) >> 7) - ((kCentre * 0x10000) >> 7);
  for (int i = 0; i < dst_size; ++i) {
    // C division (towards zero), as libswscale divides.
    int64_t x = (position - (n - 2) * (int64_t{1} << 16)) / (1 << 17);
    (*first)[i] = static_cast<int32_t>(x);
    for (int t = 0; t < n; ++t, ++x) {
      int64_t d = std::abs(x * (1 << 17) - position) << 13;
      if (increment > (1 << 16)) d = d * dst_size / src_size;
      (*weights)[static_cast<size_t>(i) * n + t] = KernelWeight(kind, d, one);
    }
    position += 2 * increment;
  }
}

}  // namespace

absl::StatusOr<ScaleFilter1D> BuildSwscaleFilter(int src_size, int dst_size, ScalerKind kind,
                                                 int unit, int alignment) {
  if (src_size < 1 || dst_size < 1) {
    return absl::InvalidArgumentError("a filter needs at least one sample on each side");
  }
  const int64_t increment = ((static_cast<int64_t>(src_size) << 16) + (dst_size >> 1)) / dst_size;
  if (increment < 10 || increment > INT_MAX) {
    return absl::FailedPreconditionError(
        absl::StrFormat("libswscale does not scale %d samples to %d", src_size, dst_size));
  }
  const int64_t one = int64_t{1} << (54 - std::min(FloorLog2(src_size / dst_size), 8));
  int wide = 0;
  std::vector<int64_t> weights;
  std::vector<int32_t> first;
  InitialWeights(src_size, dst_size, kind, increment, one, &wide, &weights, &first);
  auto weight = [&](int i, int t) -> int64_t& {
    return weights[static_cast<size_t>(i) * wide + t];
  };

  // Trim near-zero taps: from the left (moving the first input right, as long as first inputs
  // stay increasing), and count those on the right. Last output first, as libswscale goes.
  const double cutoff = kTrimCutoff * static_cast<double>(one);
  int needed = 0;
  for (int i = dst_size - 1; i >= 0; --i) {
    int64_t dropped = 0;
    for (int t = 0; t < wide; ++t) {
      dropped += std::abs(weight(i, 0));
      if (static_cast<double>(dropped) > cutoff) break;
      if (i < dst_size - 1 && first[i] >= first[i + 1]) break;
      for (int k = 1; k < wide; ++k) weight(i, k - 1) = weight(i, k);
      weight(i, wide - 1) = 0;
      ++first[i];
    }
    int kept = wide;
    dropped = 0;
    for (int t = wide - 1; t > 0; --t) {
      dropped += std::abs(weight(i, t));
      if (static_cast<double>(dropped) > cutoff) break;
      --kept;
    }
    needed = std::max(needed, kept);
  }
  // libswscale's x86 build lets an unscaled vertical pass keep one tap.
  if (needed == 1 && alignment == 2) alignment = 1;
  const int taps = (needed + alignment - 1) & ~(alignment - 1);
  if (taps >= kLongestFilter) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "%d -> %d samples needs %d taps: libswscale scales that in two passes", src_size,
        dst_size, taps));
  }
  std::vector<int64_t> kept(static_cast<size_t>(dst_size) * taps, 0);
  auto at = [&](int i, int t) -> int64_t& { return kept[static_cast<size_t>(i) * taps + t]; };
  for (int i = 0; i < dst_size; ++i) {
    for (int t = 0; t < taps && t < wide; ++t) at(i, t) = weight(i, t);
  }

  // Fold taps outside the picture onto its edge samples.
  for (int i = 0; i < dst_size; ++i) {
    if (first[i] < 0) {
      for (int t = 1; t < taps; ++t) {
        const int left = std::max(t + first[i], 0);
        at(i, left) += at(i, t);
        at(i, t) = 0;
      }
      first[i] = 0;
    }
    if (first[i] + taps > src_size) {
      const int shift = first[i] + std::min(taps - src_size, 0);
      int64_t beyond = 0;
      for (int t = taps - 1; t >= 0; --t) {
        if (first[i] + t >= src_size) {
          beyond += at(i, t);
          at(i, t) = 0;
        }
      }
      for (int t = taps - 1; t >= 0; --t) at(i, t) = t < shift ? 0 : at(i, t - shift);
      first[i] -= shift;
      at(i, src_size - 1 - first[i]) += beyond;
    }
    if (first[i] < 0 || first[i] >= src_size) {
      return absl::InternalError("a scale filter starts outside the picture");
    }
  }

  // Normalise to `unit`, carrying each tap's rounding error into the next.
  ScaleFilter1D filter;
  filter.taps = taps;
  filter.first_input = std::move(first);
  filter.coefficients.assign(static_cast<size_t>(dst_size) * taps, 0);
  for (int i = 0; i < dst_size; ++i) {
    int64_t sum = 0;
    for (int t = 0; t < taps; ++t) sum += at(i, t);
    sum = (sum + unit / 2) / unit;
    if (sum == 0) sum = 1;
    int64_t error = 0;
    for (int t = 0; t < taps; ++t) {
      const int64_t v = at(i, t) + error;
      const int64_t rounded = RoundedDivide(v, sum);
      filter.coefficients[static_cast<size_t>(i) * taps + t] = static_cast<int16_t>(rounded);
      error = v - rounded * sum;
    }
  }
  return filter;
}

absl::Status CheckPlanFits(const LumaScalePlan& plan, int width, int height, int bit_depth) {
  if (plan.dst_width == width && plan.dst_height == height && plan.bit_depth == bit_depth) {
    return absl::OkStatus();
  }
  return absl::InternalError(absl::StrFormat(
      "an upscale to %dx%d %d-bit was paired with %dx%d %d-bit pictures", plan.dst_width,
      plan.dst_height, plan.bit_depth, width, height, bit_depth));
}

absl::StatusOr<Geometry> PlanInputGeometry(const LumaScalePlan& plan, const Geometry& scored) {
  if (absl::Status fits = CheckPlanFits(plan, scored.width, scored.height, scored.bit_depth);
      !fits.ok()) {
    return fits;
  }
  Geometry input = scored;
  input.width = plan.src_width;
  input.height = plan.src_height;
  return input;
}

size_t PlanInputBytes(const LumaScalePlan& plan) {
  return LumaBytes(Geometry{plan.src_width, plan.src_height, plan.bit_depth});
}

absl::StatusOr<LumaScalePlan> PlanLumaScale(int src_width, int src_height, int dst_width,
                                            int dst_height, int bit_depth,
                                            const ScalerChoice& choice,
                                            VerticalRounding rounding,
                                            const FilterAlignment& alignment) {
  constexpr int kSmallestSide = 16;
  if (std::min({src_width, src_height, dst_width, dst_height}) < kSmallestSide) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "%dx%d -> %dx%d: pictures under %d samples a side are scaled on the CPU", src_width,
        src_height, dst_width, dst_height, kSmallestSide));
  }
  if (src_height == dst_height) {
    return absl::FailedPreconditionError(
        "equal heights: libswscale's one-tap vertical pass is not reproduced");
  }
  if (bit_depth != 8 && (bit_depth < 10 || bit_depth > 14)) {
    return absl::FailedPreconditionError(
        absl::StrFormat("%d-bit luma is scaled on the CPU", bit_depth));
  }
  LumaScalePlan plan;
  plan.src_width = src_width;
  plan.src_height = src_height;
  plan.dst_width = dst_width;
  plan.dst_height = dst_height;
  plan.bit_depth = bit_depth;
  plan.rounding = bit_depth == 8 ? rounding : VerticalRounding::kWide;
  plan.first_wide_row = FirstWideRow(dst_height, 0);
  absl::StatusOr<ScaleFilter1D> horizontal =
      BuildSwscaleFilter(src_width, dst_width, choice.kind, 1 << 14, alignment.horizontal);
  if (!horizontal.ok()) return horizontal.status();
  absl::StatusOr<ScaleFilter1D> vertical =
      BuildSwscaleFilter(src_height, dst_height, choice.kind, 1 << 12, alignment.vertical);
  if (!vertical.ok()) return vertical.status();
  if (vertical->taps == 1) {
    return absl::FailedPreconditionError(
        "a one-tap vertical pass takes libswscale's other output path");
  }
  plan.horizontal = *std::move(horizontal);
  plan.vertical = *std::move(vertical);
  return plan;
}

absl::StatusOr<LumaScalePlan> PlanChromaScale(const LumaScalePlan& luma, ChromaFormat format,
                                              const ScalerChoice& choice,
                                              const FilterAlignment& alignment) {
  if (format == ChromaFormat::k400) {
    return absl::FailedPreconditionError("4:0:0 pictures have no chroma to scale");
  }
  const PlaneSize from = StoredChromaSize(Geometry{luma.src_width, luma.src_height, 8, format});
  const PlaneSize to = StoredChromaSize(Geometry{luma.dst_width, luma.dst_height, 8, format});
  absl::StatusOr<LumaScalePlan> plan =
      PlanLumaScale(from.width, from.height, to.width, to.height, luma.bit_depth, choice,
                    luma.rounding, alignment);
  if (!plan.ok()) {
    return absl::Status(plan.status().code(),
                        absl::StrCat("chroma planes: ", plan.status().message()));
  }
  const int vertical_shift = format == ChromaFormat::k420 ? 1 : 0;
  plan->first_wide_row = FirstWideRow(luma.dst_height, vertical_shift);
  return plan;
}

}  // namespace ssimd
