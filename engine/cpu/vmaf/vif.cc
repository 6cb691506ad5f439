#include "engine/cpu/vmaf/vif.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "engine/cpu/sample_plane.h"
#include "kernels/vmaf_vif_math.h"

namespace ssimd {
namespace {

constexpr int kPad = kVifMaxFilterRadius;

bool SupportedVifDepth(int bit_depth) {
  return bit_depth == 8 || bit_depth == 10 || bit_depth == 12 || bit_depth == 16;
}

absl::Status CheckPlane(const LumaView& view, const char* what) {
  if (view.data == nullptr) {
    return absl::InvalidArgumentError(absl::StrFormat("vif: the %s plane has no data", what));
  }
  const size_t row_bytes =
      static_cast<size_t>(view.width) * static_cast<size_t>(BytesPerSample(view.bit_depth));
  if (view.stride_bytes < row_bytes) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "vif: the %s plane's stride is %d bytes, less than one %d-sample row (%d bytes)", what,
        view.stride_bytes, view.width, row_bytes));
  }
  return absl::OkStatus();
}

absl::Status CheckPlanes(const LumaView& reference, const LumaView& distorted) {
  if (reference.width != distorted.width || reference.height != distorted.height ||
      reference.bit_depth != distorted.bit_depth) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "vif: the reference is %dx%d %d-bit but the distorted picture is %dx%d %d-bit; both "
        "must have the same size and bit depth",
        reference.width, reference.height, reference.bit_depth, distorted.width,
        distorted.height, distorted.bit_depth));
  }
  if (!SupportedVifDepth(reference.bit_depth)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "vif: bit depth must be 8, 10, 12 or 16, got %d", reference.bit_depth));
  }
  if (reference.width < kVifMinSide || reference.height < kVifMinSide ||
      reference.width > kMaxDimension || reference.height > kMaxDimension) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "vif: a %dx%d picture cannot be scored; libvmaf's vif halves it three times and needs "
        "at least %dx%d (and at most %d on a side)",
        reference.width, reference.height, kVifMinSide, kVifMinSide, kMaxDimension));
  }
  absl::Status status = CheckPlane(reference, "reference");
  if (!status.ok()) return status;
  return CheckPlane(distorted, "distorted");
}

// One picture's plane of 16-bit samples with kPad rows above and below: rows -kPad .. height0 +
// kPad - 1 of `stride` samples. Every scale is written over the previous one from row 0.
class PaddedPlane {
 public:
  PaddedPlane(int width, int height)
      : stride_(width), samples_(static_cast<size_t>(height + 2 * kPad) * width) {}

  ptrdiff_t stride() const { return stride_; }
  uint16_t* Row(int y) { return samples_.data() + static_cast<ptrdiff_t>(y + kPad) * stride_; }

  // libvmaf's mirroring of a scale of `height` rows: for i = 1..radius, row -i takes row i and
  // row height-1+i takes row height-1-i, whole rows in that order. Where the picture is shorter
  // than the radius the sources are rows mirrored earlier in the sequence (or, for one row, the
  // row a previous scale left below it), exactly as in libvmaf.
  void MirrorRows(int height, int radius) {
    const size_t bytes = static_cast<size_t>(stride_) * sizeof(uint16_t);
    for (int i = 1; i <= radius; ++i) {
      std::memcpy(Row(-i), Row(i), bytes);
      std::memcpy(Row(height - 1 + i), Row(height - 1 - i), bytes);
    }
  }

 private:
  ptrdiff_t stride_;
  std::vector<uint16_t> samples_;
};

// One row of per-column values with kPad entries either side, kept from row to row and scale to
// scale as libvmaf keeps its rows.
class PaddedRow {
 public:
  explicit PaddedRow(int width) : values_(static_cast<size_t>(width) + 2 * kPad) {}

  uint32_t* at() { return values_.data() + kPad; }

  // libvmaf's horizontal mirroring of a row of `width` values, entry -f from f and width-1+f
  // from width-1-f for f = 1..radius in that order.
  void Mirror(int width, int radius) {
    uint32_t* v = at();
    for (int f = 1; f <= radius; ++f) {
      v[-f] = v[f];
      v[width - 1 + f] = v[width - 1 - f];
    }
  }

 private:
  std::vector<uint32_t> values_;
};

class VifWorkspace {
 public:
  VifWorkspace(int width, int height, int bit_depth)
      : bit_depth_(bit_depth),
        ref_(width, height),
        dis_(width, height),
        mu1_(width),
        mu2_(width),
        ref_sq_(width),
        dis_sq_(width),
        ref_dis_(width),
        low_ref_(width),
        low_dis_(width),
        sum_ref_(static_cast<size_t>(width)),
        sum_dis_(static_cast<size_t>(width)),
        sum_ref_sq_(static_cast<size_t>(width)),
        sum_dis_sq_(static_cast<size_t>(width)),
        sum_ref_dis_(static_cast<size_t>(width)) {}

  void Load(const LumaView& reference, const LumaView& distorted) {
    LoadPlane(reference, ref_);
    LoadPlane(distorted, dis_);
    ref_.MirrorRows(reference.height, VifFilterRadius(0));
    dis_.MirrorRows(reference.height, VifFilterRadius(0));
  }

  // The sums of scale `scale`, whose picture (width x height) is in the planes.
  VifSums Statistics(int scale, int width, int height, const uint16_t* log2_table,
                     double enhn_gain_limit) {
    switch (scale) {
      case 0: return StatisticsAt<0>(width, height, log2_table, enhn_gain_limit);
      case 1: return StatisticsAt<1>(width, height, log2_table, enhn_gain_limit);
      case 2: return StatisticsAt<2>(width, height, log2_table, enhn_gain_limit);
      default: return StatisticsAt<3>(width, height, log2_table, enhn_gain_limit);
    }
  }

  // Low-passes the picture of the scale before `to_scale` (width x height) with `to_scale`'s
  // filter, keeps every other row and column, writes the result over the planes and mirrors it
  // as libvmaf does (with the radius of the scale left behind).
  void Decimate(int to_scale, int width, int height) {
    switch (to_scale) {
      case 1: DecimateTo<1>(width, height); break;
      case 2: DecimateTo<2>(width, height); break;
      default: DecimateTo<3>(width, height); break;
    }
  }

 private:
  template <int kScale>
  VifSums StatisticsAt(int width, int height, const uint16_t* log2_table,
                       double enhn_gain_limit) {
    constexpr int kRadius = VifFilterRadius(kScale);
    uint32_t* mu1 = mu1_.at();
    uint32_t* mu2 = mu2_.at();
    uint32_t* ref_sq = ref_sq_.at();
    uint32_t* dis_sq = dis_sq_.at();
    uint32_t* ref_dis = ref_dis_.at();
    const VifColumnSumRows sums_rows{sum_ref_.data(), sum_dis_.data(), sum_ref_sq_.data(),
                                     sum_dis_sq_.data(), sum_ref_dis_.data()};
    VifSums sums;
    for (int y = 0; y < height; ++y) {
      // The vertical sums a row of taps at a time, so that the inner loops run along the row.
      for (int x = 0; x < width; ++x) {
        sums_rows.ref[x] = 0;
        sums_rows.dis[x] = 0;
        sums_rows.ref_sq[x] = 0;
        sums_rows.dis_sq[x] = 0;
        sums_rows.ref_dis[x] = 0;
      }
      for (int k = 0; k <= 2 * kRadius; ++k) {
        VifAddColumnTapRow(sums_rows, VifFilterTap(kScale, k), ref_.Row(y + k - kRadius),
                           dis_.Row(y + k - kRadius), width);
      }
      for (int x = 0; x < width; ++x) {
        const VifColumnSums column{sums_rows.ref[x], sums_rows.dis[x], sums_rows.ref_sq[x],
                                   sums_rows.dis_sq[x], sums_rows.ref_dis[x]};
        const VifColumnMoments m = VifFinishColumn(column, kScale, bit_depth_);
        mu1[x] = m.mu1;
        mu2[x] = m.mu2;
        ref_sq[x] = m.ref_sq;
        dis_sq[x] = m.dis_sq;
        ref_dis[x] = m.ref_dis;
      }
      mu1_.Mirror(width, kRadius);
      mu2_.Mirror(width, kRadius);
      ref_sq_.Mirror(width, kRadius);
      dis_sq_.Mirror(width, kRadius);
      ref_dis_.Mirror(width, kRadius);
      for (int x = 0; x < width; ++x) {
        const VifSigmas s = VifHorizontalSigmas<kScale>(mu1 + x, mu2 + x, ref_sq + x,
                                                        dis_sq + x, ref_dis + x);
        VifAccumulatePixel(sums, s, log2_table, enhn_gain_limit);
      }
    }
    return sums;
  }

  template <int kToScale>
  void DecimateTo(int width, int height) {
    constexpr int kRadius = VifFilterRadius(kToScale);
    const int out_width = width / 2;
    const int out_height = height / 2;
    const ptrdiff_t stride = ref_.stride();
    std::vector<uint16_t> out_ref(static_cast<size_t>(out_width) * out_height);
    std::vector<uint16_t> out_dis(out_ref.size());
    uint32_t* low_ref = low_ref_.at();
    uint32_t* low_dis = low_dis_.at();
    for (int y = 0; y < out_height; ++y) {
      const uint16_t* ref_row = ref_.Row(2 * y);
      const uint16_t* dis_row = dis_.Row(2 * y);
      for (int x = 0; x < width; ++x) {
        VifVerticalLowPass<kToScale>(ref_row + x, dis_row + x, stride, bit_depth_, &low_ref[x],
                                     &low_dis[x]);
      }
      low_ref_.Mirror(width, kRadius);
      low_dis_.Mirror(width, kRadius);
      uint16_t* o_ref = out_ref.data() + static_cast<size_t>(y) * out_width;
      uint16_t* o_dis = out_dis.data() + static_cast<size_t>(y) * out_width;
      for (int x = 0; x < out_width; ++x) {
        o_ref[x] = VifHorizontalLowPass<kToScale>(low_ref + 2 * x);
        o_dis[x] = VifHorizontalLowPass<kToScale>(low_dis + 2 * x);
      }
    }
    const size_t row_bytes = static_cast<size_t>(out_width) * sizeof(uint16_t);
    for (int y = 0; y < out_height; ++y) {
      std::memcpy(ref_.Row(y), out_ref.data() + static_cast<size_t>(y) * out_width, row_bytes);
      std::memcpy(dis_.Row(y), out_dis.data() + static_cast<size_t>(y) * out_width, row_bytes);
    }
    ref_.MirrorRows(out_height, VifFilterRadius(kToScale - 1));
    dis_.MirrorRows(out_height, VifFilterRadius(kToScale - 1));
  }

  static void LoadPlane(const LumaView& view, PaddedPlane& plane) {
    const SamplePlane samples(view);
    for (int y = 0; y < view.height; ++y) {
      uint16_t* out = plane.Row(y);
      if (!samples.wide()) {
        const uint8_t* in = samples.bytes() + static_cast<size_t>(y) * samples.stride();
        for (int x = 0; x < view.width; ++x) out[x] = in[x];
      } else {
        const SampleWord* in = samples.words() + static_cast<size_t>(y) * samples.stride();
        for (int x = 0; x < view.width; ++x) out[x] = in[x];
      }
    }
  }

  int bit_depth_;
  PaddedPlane ref_;
  PaddedPlane dis_;
  // The rows of vertical moments of the statistics, and of the low-pass before decimation:
  // distinct rows, as in libvmaf, since what one leaves behind can be read at scale 3.
  PaddedRow mu1_;
  PaddedRow mu2_;
  PaddedRow ref_sq_;
  PaddedRow dis_sq_;
  PaddedRow ref_dis_;
  PaddedRow low_ref_;
  PaddedRow low_dis_;
  // The exact vertical sums of the current row, one array per sum.
  std::vector<uint32_t> sum_ref_;
  std::vector<uint32_t> sum_dis_;
  std::vector<uint64_t> sum_ref_sq_;
  std::vector<uint64_t> sum_dis_sq_;
  std::vector<uint64_t> sum_ref_dis_;
};

}  // namespace

absl::Status ValidateVifOptions(const VifOptions& options) {
  // The negated comparison also refuses NaN.
  if (!(options.enhn_gain_limit >= kVifMinEnhnGainLimit &&
        options.enhn_gain_limit <= kVifDefaultEnhnGainLimit)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "vif option vif_enhn_gain_limit is %g; expected a value from %g to %g",
        options.enhn_gain_limit, kVifMinEnhnGainLimit, kVifDefaultEnhnGainLimit));
  }
  return absl::OkStatus();
}

int IntegerVifMinSide() { return kVifMinSide; }

const std::array<uint16_t, 65536>& IntegerVifLog2Table() {
  static const std::array<uint16_t, 65536>* const table = [] {
    auto* t = new std::array<uint16_t, 65536>();
    FillVifLog2Table(t->data());
    return t;
  }();
  return *table;
}

absl::StatusOr<VifFrameSums> IntegerVifSums(const LumaView& reference,
                                            const LumaView& distorted,
                                            const VifOptions& options) {
  absl::Status status = ValidateVifOptions(options);
  if (!status.ok()) return status;
  status = CheckPlanes(reference, distorted);
  if (!status.ok()) return status;

  const uint16_t* log2_table = IntegerVifLog2Table().data();
  VifWorkspace workspace(reference.width, reference.height, reference.bit_depth);
  workspace.Load(reference, distorted);
  VifFrameSums sums;
  int width = reference.width;
  int height = reference.height;
  for (int scale = 0; scale < kVifScales; ++scale) {
    if (scale > 0) {
      workspace.Decimate(scale, width, height);
      width /= 2;
      height /= 2;
    }
    if (scale == 0 && options.skip_scale0) continue;
    sums.scale[scale] =
        workspace.Statistics(scale, width, height, log2_table, options.enhn_gain_limit);
  }
  return sums;
}

VifScores IntegerVifScoresFromSums(const VifFrameSums& sums, const VifOptions& options) {
  VifScores scores;
  for (int scale = 0; scale < kVifScales; ++scale) {
    scores.scale[scale] =
        scale == 0 && options.skip_scale0 ? 0.0 : VifScaleScore(sums.scale[scale]);
  }
  return scores;
}

absl::StatusOr<VifScores> ScoreIntegerVif(const LumaView& reference, const LumaView& distorted,
                                          const VifOptions& options) {
  absl::StatusOr<VifFrameSums> sums = IntegerVifSums(reference, distorted, options);
  if (!sums.ok()) return sums.status();
  return IntegerVifScoresFromSums(*sums, options);
}

}  // namespace ssimd
