#include "engine/cpu/vmaf/adm.h"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_format.h"
#include "engine/cpu/sample_plane.h"
#include "kernels/vmaf_adm_math.h"

namespace ssimd {
namespace {

// One scale's wavelet bands of one picture, each width x height, rows packed.
struct Bands {
  int width = 0;
  int height = 0;
  std::vector<int32_t> a, h, v, d;

  void Resize(int w, int h_) {
    width = w;
    height = h_;
    const size_t n = static_cast<size_t>(w) * static_cast<size_t>(h_);
    a.assign(n, 0);
    h.assign(n, 0);
    v.assign(n, 0);
    d.assign(n, 0);
  }
};

// Three planes (h, v, d) of one scale's band size.
struct Planes3 {
  std::vector<int32_t> band[3];

  void Resize(size_t n) {
    for (std::vector<int32_t>& b : band) b.assign(n, 0);
  }
  AdmPlanes3 View() const {
    AdmPlanes3 view;
    for (int b = 0; b < 3; ++b) view.band[b] = band[b].data();
    return view;
  }
};

template <typename Sample>
void Dwt0(const Sample* data, size_t stride, int width, int height, int bit_depth, Bands& out) {
  out.Resize((width + 1) / 2, (height + 1) / 2);
  std::vector<int32_t> low(width), high(width);
  for (int y = 0; y < out.height; ++y) {
    const Sample* rows[4];
    for (int k = 0; k < 4; ++k) {
      rows[k] = data + static_cast<size_t>(AdmDwtSourceIndex(2 * y - 1 + k, height)) * stride;
    }
    AdmDwt0VerticalRow(rows, width, bit_depth, low.data(), high.data());
    const size_t base = static_cast<size_t>(y) * out.width;
    for (int x = 0; x < out.width; ++x) {
      AdmDwtHorizontalAt(low.data(), high.data(), width, x, 0, &out.a[base + x],
                         &out.v[base + x], &out.h[base + x], &out.d[base + x]);
    }
  }
}

// Scales 1 to 3: the step over the previous scale's low band (width x height).
void Dwt123(const std::vector<int32_t>& input, int width, int height, int scale, Bands& out) {
  out.Resize((width + 1) / 2, (height + 1) / 2);
  std::vector<int32_t> low(width), high(width);
  for (int y = 0; y < out.height; ++y) {
    const int32_t* rows[4];
    for (int k = 0; k < 4; ++k) {
      rows[k] = input.data() +
                static_cast<size_t>(AdmDwtSourceIndex(2 * y - 1 + k, height)) * width;
    }
    AdmDwt123VerticalRow(rows, width, scale, low.data(), high.data());
    const size_t base = static_cast<size_t>(y) * out.width;
    for (int x = 0; x < out.width; ++x) {
      AdmDwtHorizontalAt(low.data(), high.data(), width, x, scale, &out.a[base + x],
                         &out.v[base + x], &out.h[base + x], &out.d[base + x]);
    }
  }
}

void Decouple(const Bands& ref, const Bands& dis, int scale, double gain_limit, Planes3& restored,
              Planes3& additive) {
  const int w = ref.width;
  const size_t n = static_cast<size_t>(w) * static_cast<size_t>(ref.height);
  restored.Resize(n);
  additive.Resize(n);
  const AdmRegion region = AdmFilterRegion(w, ref.height);
  for (int y = region.top; y < region.bottom; ++y) {
    const size_t base = static_cast<size_t>(y) * w;
    for (int x = region.left; x < region.right; ++x) {
      AdmDecoupleAt(&ref.h[base], &ref.v[base], &ref.d[base], &dis.h[base], &dis.v[base],
                    &dis.d[base], x, scale, gain_limit, &restored.band[0][base],
                    &restored.band[1][base], &restored.band[2][base], &additive.band[0][base],
                    &additive.band[1][base], &additive.band[2][base]);
    }
  }
}

// The CSF-weighted values of `source` and their masking values, where the masking sum reads them.
void Csf(const Planes3& source, int width, int height, int scale, const AdmScaleFactors& factors,
         Planes3& csf, Planes3& mask) {
  const size_t n = static_cast<size_t>(width) * static_cast<size_t>(height);
  csf.Resize(n);
  mask.Resize(n);
  const AdmRegion region = AdmFilterRegion(width, height);
  for (int b = 0; b < 3; ++b) {
    const int32_t* src = source.band[b].data();
    int32_t* c = csf.band[b].data();
    int32_t* m = mask.band[b].data();
    for (int y = region.top; y < region.bottom; ++y) {
      const size_t base = static_cast<size_t>(y) * width;
      for (int x = region.left; x < region.right; ++x) {
        const size_t i = base + x;
        AdmCsfAt(src[i], factors.fixed[b], b, scale, &c[i], &m[i]);
      }
    }
  }
}

// One scale's masking sums of `values` against the CSF (and masking values) of the other part,
// per band: each row's sum rounded and shifted, then the rows added.
void MaskedSums(const Planes3& values, const Planes3& csf, const Planes3& mask,
                const AdmScalePlan& plan, int64_t totals[3]) {
  const int width = plan.width;
  const int height = plan.height;
  const AdmRegion region = AdmSumRegion(width, height);
  const AdmPlanes3 v = values.View();
  const AdmPlanes3 c = csf.View();
  const AdmPlanes3 m = mask.View();
  totals[0] = totals[1] = totals[2] = 0;
  for (int y = region.top; y < region.bottom; ++y) {
    int64_t row[3];
    AdmMaskedRowSums(v, c, m, width, width, height, y, region.left, region.right, plan.masking,
                     row);
    for (int b = 0; b < 3; ++b) {
      totals[b] = AdmAddWrapping(
          totals[b], AdmMaskingRowTerm(row[b], plan.masking_row_shift, plan.masking_row_round));
    }
  }
}

void DenominatorSums(const Bands& ref, int scale, const AdmScalePlan& plan, uint64_t totals[3]) {
  const int w = ref.width;
  const AdmRegion region = AdmSumRegion(w, ref.height);
  const int32_t* bands[3] = {ref.h.data(), ref.v.data(), ref.d.data()};
  totals[0] = totals[1] = totals[2] = 0;
  for (int y = region.top; y < region.bottom; ++y) {
    const size_t base = static_cast<size_t>(y) * w;
    for (int b = 0; b < 3; ++b) {
      const int32_t* row = bands[b] + base;
      uint64_t sum = 0;
      for (int x = region.left; x < region.right; ++x) {
        sum += AdmReferenceCube(row[x], scale, plan.denominator);
      }
      totals[b] += AdmDenominatorRowTerm(sum, plan.denominator);
    }
  }
}

absl::Status CheckView(const LumaView& view, const char* what) {
  if (view.bit_depth != 8 && view.bit_depth != 10 && view.bit_depth != 12 &&
      view.bit_depth != 16) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "adm: the %s picture has bit depth %d; expected 8, 10, 12 or 16", what, view.bit_depth));
  }
  if (view.width < kAdmMinSide || view.height < kAdmMinSide) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "adm: the %s picture is %dx%d; libvmaf's integer adm needs at least %dx%d (it reads "
        "outside its buffers below)",
        what, view.width, view.height, kAdmMinSide, kAdmMinSide));
  }
  if (view.width > kMaxDimension || view.height > kMaxDimension) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "adm: the %s picture is %dx%d; sides above %d are not accepted", what, view.width,
        view.height, kMaxDimension));
  }
  if (view.data == nullptr) {
    return absl::InvalidArgumentError(absl::StrFormat("adm: the %s picture has no data", what));
  }
  const size_t row_bytes =
      static_cast<size_t>(view.width) * static_cast<size_t>(BytesPerSample(view.bit_depth));
  if (view.stride_bytes < row_bytes) {
    return absl::InvalidArgumentError(
        absl::StrFormat("adm: the %s picture has a stride of %d bytes; expected at least %d", what,
                        view.stride_bytes, row_bytes));
  }
  return absl::OkStatus();
}

absl::Status CheckRange(const char* name, double value, double lo, double hi) {
  if (!(value >= lo && value <= hi)) {
    return absl::InvalidArgumentError(
        absl::StrFormat("adm: %s is %g; it must lie in [%g, %g]", name, value, lo, hi));
  }
  return absl::OkStatus();
}

absl::Status CheckPair(const LumaView& reference, const LumaView& distorted) {
  if (absl::Status s = CheckView(reference, "reference"); !s.ok()) return s;
  if (absl::Status s = CheckView(distorted, "distorted"); !s.ok()) return s;
  if (reference.width != distorted.width || reference.height != distorted.height) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "adm: the reference picture is %dx%d but the distorted one %dx%d", reference.width,
        reference.height, distorted.width, distorted.height));
  }
  if (reference.bit_depth != distorted.bit_depth) {
    return absl::InvalidArgumentError(
        absl::StrFormat("adm: the reference picture has bit depth %d but the distorted one %d",
                        reference.bit_depth, distorted.bit_depth));
  }
  return absl::OkStatus();
}

template <typename Sample>
const Sample* SamplesOf(const SamplePlane& plane);
template <>
const uint8_t* SamplesOf<uint8_t>(const SamplePlane& plane) {
  return plane.bytes();
}
template <>
const SampleWord* SamplesOf<SampleWord>(const SamplePlane& plane) {
  return plane.words();
}

}  // namespace

absl::Status ValidateAdmOptions(const AdmOptions& o) {
  struct Range {
    const char* name;
    double value;
    double lo;
    double hi;
  };
  const Range ranges[] = {
      {"adm_enhn_gain_limit", o.adm_enhn_gain_limit, 1.0, 100.0},
      {"adm_norm_view_dist", o.adm_norm_view_dist, 0.75, 24.0},
      {"adm_ref_display_height", static_cast<double>(o.adm_ref_display_height), 1, 4320},
      {"adm_csf_mode", static_cast<double>(o.adm_csf_mode), 0, 3},
      {"adm_csf_scale", o.adm_csf_scale, 0.0, 50.0},
      {"adm_csf_diag_scale", o.adm_csf_diag_scale, 0.0, 50.0},
      {"adm_noise_weight", o.adm_noise_weight, 0.0, 1500.0},
      {"adm_dlm_weight", o.adm_dlm_weight, 0.0, 1.0},
      {"adm_min_val", o.adm_min_val, 0.0, 1.0},
  };
  for (const Range& r : ranges) {
    if (absl::Status s = CheckRange(r.name, r.value, r.lo, r.hi); !s.ok()) return s;
  }
  if (o.adm_norm_view_dist * o.adm_ref_display_height < 3.0 * 1080) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "adm: adm_norm_view_dist * adm_ref_display_height is %g; libvmaf's integer adm needs at "
        "least 3 * 1080 (its 16-bit pipeline cannot represent lower angular frequencies)",
        o.adm_norm_view_dist * o.adm_ref_display_height));
  }
  if (o.adm_csf_mode == 2 || o.adm_csf_mode == 3) {
    float unused = 0;
    if (!AdmBlendedCsf(o.adm_csf_mode == 3, 0, 0, o.adm_norm_view_dist,
                       o.adm_ref_display_height, &unused)) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "adm: adm_csf_mode %d has CSF tables only for adm_ref_display_height / "
          "adm_norm_view_dist 1080/3, 1080/5, 2160/1.5, 2160/3, 2160/5 and 720/5; got %d/%g",
          o.adm_csf_mode, o.adm_ref_display_height, o.adm_norm_view_dist));
    }
  }
  return absl::OkStatus();
}

AdmSumOptions AdmSumOptionsOf(const AdmOptions& o) {
  AdmSumOptions sum;
  sum.enhn_gain_limit = o.adm_enhn_gain_limit;
  sum.csf.csf_mode = o.adm_csf_mode;
  sum.csf.norm_view_dist = o.adm_norm_view_dist;
  sum.csf.ref_display_height = o.adm_ref_display_height;
  sum.csf.csf_scale = o.adm_csf_scale;
  sum.csf.csf_diag_scale = o.adm_csf_diag_scale;
  sum.skip_aim = o.adm_skip_aim;
  sum.skip_scale0 = o.adm_skip_scale0;
  return sum;
}

absl::StatusOr<AdmSums> IntegerAdmSums(const LumaView& reference, const LumaView& distorted,
                                       const AdmOptions& options) {
  if (absl::Status s = ValidateAdmOptions(options); !s.ok()) return s;
  if (absl::Status s = CheckPair(reference, distorted); !s.ok()) return s;
  const AdmSumOptions sum_options = AdmSumOptionsOf(options);
  AdmPlan plan;
  if (!AdmPlanFor(reference.width, reference.height, sum_options, &plan)) {
    return absl::InvalidArgumentError("adm: no CSF factors for these options");
  }
  const SamplePlane ref_plane(reference);
  const SamplePlane dis_plane(distorted);
  const int bit_depth = reference.bit_depth;

  Bands ref, dis;
  if (ref_plane.wide()) {
    Dwt0(SamplesOf<SampleWord>(ref_plane), ref_plane.stride(), reference.width, reference.height,
         bit_depth, ref);
    Dwt0(SamplesOf<SampleWord>(dis_plane), dis_plane.stride(), reference.width, reference.height,
         bit_depth, dis);
  } else {
    Dwt0(SamplesOf<uint8_t>(ref_plane), ref_plane.stride(), reference.width, reference.height,
         bit_depth, ref);
    Dwt0(SamplesOf<uint8_t>(dis_plane), dis_plane.stride(), reference.width, reference.height,
         bit_depth, dis);
  }

  AdmSums sums{};
  Planes3 restored, additive, csf, mask;
  for (int scale = 0; scale < 4; ++scale) {
    if (scale > 0) {
      Bands next_ref, next_dis;
      Dwt123(ref.a, ref.width, ref.height, scale, next_ref);
      Dwt123(dis.a, dis.width, dis.height, scale, next_dis);
      ref = std::move(next_ref);
      dis = std::move(next_dis);
    }
    const AdmScalePlan& p = plan.scale[scale];
    if (!p.summed) continue;
    AdmScaleSums& out = sums.scale[scale];
    Decouple(ref, dis, scale, sum_options.enhn_gain_limit, restored, additive);
    DenominatorSums(ref, scale, p, out.denominator);
    Csf(additive, p.width, p.height, scale, p.factors, csf, mask);
    MaskedSums(restored, csf, mask, p, out.numerator);
    if (!sum_options.skip_aim) {
      Csf(restored, p.width, p.height, scale, p.factors, csf, mask);
      MaskedSums(additive, csf, mask, p, out.aim);
    }
  }
  return sums;
}

absl::StatusOr<AdmScores> FinishIntegerAdm(const AdmSums& sums, int width, int height,
                                           const AdmOptions& options) {
  if (absl::Status s = ValidateAdmOptions(options); !s.ok()) return s;
  AdmPlan plan;
  if (!AdmPlanFor(width, height, AdmSumOptionsOf(options), &plan)) {
    return absl::InvalidArgumentError("adm: no CSF factors for these options");
  }
  double num = 0, den = 0, aim_num = 0;
  double per_scale[8];
  for (int scale = 0; scale < 4; ++scale) {
    const AdmScalePlan& p = plan.scale[scale];
    const AdmScaleSums& s = sums.scale[scale];
    float num_scale = 0.0f;
    float den_scale = 0.0f;
    float aim_scale = 0.0f;
    if (!p.summed) {
      // libvmaf keeps only the low band and counts a token denominator.
      den_scale = static_cast<float>(1e-10);
    } else {
      num_scale = AdmNumeratorScale(scale, s.numerator, p.width, p.height, p.masking,
                                    options.adm_noise_weight);
      den_scale = AdmDenominatorScale(scale, s.denominator, p.width, p.height, p.denominator,
                                      p.factors, options.adm_noise_weight);
      if (!options.adm_skip_aim) {
        aim_scale = AdmNumeratorScale(scale, s.aim, p.width, p.height, p.masking, 0.0);
      }
    }
    num += num_scale;
    den += den_scale;
    aim_num += aim_scale;
    per_scale[2 * scale] = num_scale;
    per_scale[2 * scale + 1] = den_scale;
  }

  const double limit = 1e-10 * (width * height) / (1920.0 * 1080.0);
  num = num < limit ? 0 : num;
  den = den < limit ? 0 : den;
  AdmScores scores;
  if (den == 0.0) {
    scores.adm2 = 1.0;
    scores.aim = 0.0;
  } else {
    scores.aim = aim_num / den;
    scores.adm2 = num / den;
  }
  const double adm3 = scores.adm2 * options.adm_dlm_weight +
                      (1 - scores.aim) * (1 - options.adm_dlm_weight);
  scores.adm3 = adm3 > options.adm_min_val ? adm3 : options.adm_min_val;
  for (int s = 0; s < 4; ++s) scores.scale[s] = per_scale[2 * s] / per_scale[2 * s + 1];
  return scores;
}

absl::StatusOr<AdmScores> ScoreIntegerAdm(const LumaView& reference, const LumaView& distorted,
                                          const AdmOptions& options) {
  absl::StatusOr<AdmSums> sums = IntegerAdmSums(reference, distorted, options);
  if (!sums.ok()) return sums.status();
  return FinishIntegerAdm(*sums, reference.width, reference.height, options);
}

}  // namespace ssimd
