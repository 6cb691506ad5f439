#include "engine/cpu/psnr.h"

#include <cmath>
#include <string>

#include "absl/strings/str_format.h"
#include "base/status_macros.h"
#include "engine/cpu/sample_plane.h"
#include "kernels/psnr_math.h"

namespace ssimd {
namespace {

absl::Status CheckPlane(const Geometry& geometry, const LumaView& view, int plane,
                        const char* side) {
  const PlaneSize size = PsnrPlaneSize(geometry, plane);
  const std::string what = absl::StrFormat("%s plane %s", side, PsnrPlaneSuffix(plane));
  if (view.width != size.width || view.height != size.height) {
    return absl::InvalidArgumentError(absl::StrFormat("%s is %dx%d; expected %dx%d", what,
                                                      view.width, view.height, size.width,
                                                      size.height));
  }
  if (view.bit_depth != geometry.bit_depth) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s has bit depth %d; expected %d", what, view.bit_depth, geometry.bit_depth));
  }
  if (size.width == 0 || size.height == 0) return absl::OkStatus();
  if (view.data == nullptr) return absl::InvalidArgumentError(what + " has no data");
  const size_t row_bytes =
      static_cast<size_t>(size.width) * static_cast<size_t>(BytesPerSample(geometry.bit_depth));
  if (view.stride_bytes < row_bytes) {
    return absl::InvalidArgumentError(absl::StrFormat("%s has a stride of %d bytes; expected at "
                                                      "least %d",
                                                      what, view.stride_bytes, row_bytes));
  }
  return absl::OkStatus();
}

uint64_t SquaredError(const LumaView& reference, const LumaView& distorted) {
  if (reference.width == 0 || reference.height == 0) return 0;
  const SamplePlane ref(reference);
  const SamplePlane dist(distorted);
  if (!ref.wide()) {
    return PlaneSquaredError(ref.bytes(), ref.stride(), dist.bytes(), dist.stride(), ref.width(),
                             ref.height());
  }
  return PlaneSquaredError(ref.words(), ref.stride(), dist.words(), dist.stride(), ref.width(),
                           ref.height());
}

}  // namespace

absl::StatusOr<PsnrPlanes> PsnrPlanesOfFrame(const Geometry& geometry,
                                             absl::Span<const uint8_t> frame) {
  SSIMD_RETURN_IF_ERROR(ValidateGeometry(geometry));
  if (frame.size() != FrameBytes(geometry)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "a %dx%d %s frame of %d bits has %d bytes; expected %d", geometry.width,
        geometry.height, ChromaFormatName(geometry.chroma), geometry.bit_depth, frame.size(),
        FrameBytes(geometry)));
  }
  const size_t sample_bytes = static_cast<size_t>(BytesPerSample(geometry.bit_depth));
  PsnrPlanes planes;
  planes[0] = LumaView{frame.data(), static_cast<size_t>(geometry.width) * sample_bytes,
                       geometry.width, geometry.height, geometry.bit_depth};
  absl::StatusOr<std::array<LumaView, 2>> chroma =
      ChromaViews(geometry, frame.subspan(LumaBytes(geometry)), "the frame's chroma");
  if (!chroma.ok()) return chroma.status();
  planes[1] = (*chroma)[0];
  planes[2] = (*chroma)[1];
  return planes;
}

PsnrScorer::PsnrScorer(const Geometry& geometry, const PsnrOptions& options)
    : geometry_(geometry), options_(options) {
  planes_ = options.enable_chroma && geometry.chroma != ChromaFormat::k400 ? 3 : 1;
}

absl::StatusOr<PsnrScorer> PsnrScorer::Create(const Geometry& geometry,
                                              const PsnrOptions& options) {
  SSIMD_RETURN_IF_ERROR(ValidateGeometry(geometry));
  if (!(options.min_sse >= 0.0) || !std::isfinite(options.min_sse)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "psnr option min_sse is %g; expected a finite value of at least 0", options.min_sse));
  }
  return PsnrScorer(geometry, options);
}

absl::StatusOr<FrameScores> PsnrScorer::Score(const PsnrPlanes& reference,
                                              const PsnrPlanes& distorted,
                                              FrameSums* frame_sums) {
  for (int p = 0; p < planes_; ++p) {
    SSIMD_RETURN_IF_ERROR(CheckPlane(geometry_, reference[p], p, "reference"));
    SSIMD_RETURN_IF_ERROR(CheckPlane(geometry_, distorted[p], p, "distorted"));
  }
  FrameScores scores;
  FrameSums sums;
  for (int p = 0; p < planes_; ++p) {
    AddPsnrPlaneScores(geometry_, options_, p, SquaredError(reference[p], distorted[p]), scores,
                       sums);
  }
  ++frames_;
  for (const auto& [name, value] : sums) totals_[name] += value;
  if (frame_sums != nullptr) frame_sums->merge(sums);
  return scores;
}

absl::Status AddPsnrScores(const Geometry& geometry, const PsnrOptions& options,
                          const LumaView& reference, const LumaView& distorted,
                          const FrameChroma* chroma, FrameScores& scores, FrameSums& sums) {
  PsnrOptions luma_only = options;
  luma_only.enable_chroma = false;
  absl::StatusOr<PsnrScorer> scorer = PsnrScorer::Create(geometry, luma_only);
  if (!scorer.ok()) return scorer.status();
  FrameSums frame_sums;
  absl::StatusOr<FrameScores> luma =
      scorer->Score({reference, {}, {}}, {distorted, {}, {}}, &frame_sums);
  if (!luma.ok()) return luma.status();
  scores.merge(*luma);
  sums.merge(frame_sums);
  if (!options.enable_chroma || geometry.chroma == ChromaFormat::k400) return absl::OkStatus();
  if (chroma == nullptr) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "psnr with enable_chroma needs the chroma planes of this %s picture; only luma was "
        "given (send reference_chroma and distorted_chroma, or ask psnr=enable_chroma=false)",
        ChromaFormatName(geometry.chroma)));
  }
  return AddChromaPsnrScores(geometry, options, *chroma, scores, sums);
}

FrameScores PsnrScorer::Pooled() const { return ApsnrScores(totals_, frames_); }

}  // namespace ssimd
