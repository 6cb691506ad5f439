#include "engine/scorer.h"

#include <array>
#include <vector>

#include "absl/strings/str_format.h"
#include "base/status_macros.h"
#include "engine/luma_scale_host.h"
#include "engine/luma_scale_plan.h"
#include "engine/psnr_scores.h"
#include "engine/scratch.h"

namespace ssimd {
namespace {

// The plan's host model, for backends that score packed planes on the host (the CPU) or a frame
// that fell back to one: the same bytes a device's kernels or libswscale would give.
absl::Status UpscaleOnHost(const Geometry& geometry, const LumaScalePlan& plan,
                           absl::Span<const uint8_t> small, std::vector<uint8_t>& out) {
  absl::StatusOr<Geometry> input = PlanInputGeometry(plan, geometry);
  if (!input.ok()) return input.status();
  SSIMD_RETURN_IF_ERROR(
      CheckLumaBytes(*input, small.size(), "distorted luma before its upscale"));
  const size_t row_bytes = static_cast<size_t>(geometry.width) * BytesPerSample(geometry.bit_depth);
  out.resize(row_bytes * geometry.height);
  ScaleLumaOnHost(plan, small.data(),
                  static_cast<size_t>(input->width) * BytesPerSample(input->bit_depth),
                  out.data(), row_bytes);
  return absl::OkStatus();
}

// The distorted chroma of `chroma` (whole planes before their upscale) scaled with `plan`'s
// chroma plan into `out`, and the pair's views at libvmaf's sizes over it.
absl::StatusOr<FrameChroma> UpscaleChromaOnHost(const Geometry& geometry, const LumaScalePlan& plan,
                                                const FrameChroma& chroma,
                                                std::vector<uint8_t>& out) {
  const LumaScalePlan* planes = plan.chroma.get();
  const PlaneSize stored = StoredChromaSize(geometry);
  if (planes == nullptr || planes->dst_width != stored.width ||
      planes->dst_height != stored.height) {
    return absl::InternalError("a rendition's chroma came without a plan that fits its upscale");
  }
  const size_t sample = static_cast<size_t>(BytesPerSample(geometry.bit_depth));
  const size_t plane_bytes = static_cast<size_t>(stored.width) * stored.height * sample;
  out.resize(2 * plane_bytes);
  for (int p = 0; p < 2; ++p) {
    const LumaView& small = chroma.distorted[p];
    if (small.width != planes->src_width || small.height != planes->src_height ||
        small.bit_depth != geometry.bit_depth) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "the distorted chroma before its upscale is %dx%d at %d bits; expected %dx%d at %d",
          small.width, small.height, small.bit_depth, planes->src_width, planes->src_height,
          geometry.bit_depth));
    }
    ScaleLumaOnHost(*planes, small.data, small.stride_bytes, out.data() + p * plane_bytes,
                    stored.width * sample);
  }
  absl::StatusOr<std::array<LumaView, 2>> scaled =
      ChromaViews(geometry, absl::MakeConstSpan(out), "distorted chroma");
  if (!scaled.ok()) return scaled.status();
  return FrameChroma{chroma.reference, *scaled};
}

}  // namespace

absl::StatusOr<ScoreResult> Scorer::ScorePieces(const Geometry& geometry,
                                                const FeatureSet& features,
                                                const PiecewiseFramePair& pair) {
  // The calling thread's gather buffers, kept for its next frame unless they grew very large.
  thread_local std::vector<uint8_t> reference_scratch;
  thread_local std::vector<uint8_t> distorted_scratch;
  thread_local std::vector<uint8_t> upscaled_scratch;
  thread_local std::vector<uint8_t> previous_scratch;
  thread_local std::vector<uint8_t> chroma_scratch;
  thread_local std::vector<uint8_t> device_chroma_scratch;
  // Planes in a GPU's memory are copied here: this backend reads host memory.
  absl::StatusOr<absl::Span<const uint8_t>> reference_bytes =
      pair.reference->HostBytes(reference_scratch);
  absl::StatusOr<absl::Span<const uint8_t>> distorted_host =
      pair.distorted->HostBytes(distorted_scratch);
  if (!reference_bytes.ok()) return reference_bytes.status();
  if (!distorted_host.ok()) return distorted_host.status();
  absl::StatusOr<LumaView> reference =
      MakeLumaView(geometry, *reference_bytes, "reference luma");
  absl::Span<const uint8_t> distorted_bytes = *distorted_host;
  const FrameChroma* chroma = pair.chroma;
  // Chroma a video engine left on a device is copied here, as the luma is.
  absl::StatusOr<FrameChroma> host_chroma;
  if (reference.ok() && chroma != nullptr &&
      (chroma->reference_on_device != nullptr || chroma->distorted_on_device != nullptr)) {
    host_chroma = ChromaOnHost(*chroma, device_chroma_scratch);
    if (host_chroma.ok()) {
      chroma = &*host_chroma;
    } else {
      reference = host_chroma.status();
    }
  }
  absl::StatusOr<FrameChroma> upscaled_chroma;
  if (reference.ok() && pair.distorted_upscale != nullptr) {
    absl::Status scaled = UpscaleOnHost(geometry, *pair.distorted_upscale, distorted_bytes,
                                        upscaled_scratch);
    if (scaled.ok() && chroma != nullptr) {
      upscaled_chroma =
          UpscaleChromaOnHost(geometry, *pair.distorted_upscale, *chroma, chroma_scratch);
      scaled = upscaled_chroma.status();
      if (scaled.ok()) chroma = &*upscaled_chroma;
    }
    if (!scaled.ok()) reference = scaled;
    distorted_bytes = absl::MakeConstSpan(upscaled_scratch);
  }
  absl::StatusOr<LumaView> distorted =
      reference.ok() ? MakeLumaView(geometry, distorted_bytes, "distorted luma") : reference;
  absl::StatusOr<LumaView> previous;
  if (distorted.ok() && pair.previous_reference != nullptr) {
    absl::StatusOr<absl::Span<const uint8_t>> previous_bytes =
        pair.previous_reference->HostBytes(previous_scratch);
    previous = previous_bytes.ok()
                   ? MakeLumaView(geometry, *previous_bytes, "previous reference luma")
                   : absl::StatusOr<LumaView>(previous_bytes.status());
    if (!previous.ok()) distorted = previous.status();
  }
  absl::StatusOr<ScoreResult> result =
      distorted.ok()
          ? Score(geometry, features,
                  FramePair{*reference, *distorted, chroma,
                            pair.previous_reference != nullptr ? &*previous : nullptr})
          : absl::StatusOr<ScoreResult>(distorted.status());
  for (std::vector<uint8_t>* scratch :
       {&reference_scratch, &distorted_scratch, &upscaled_scratch, &previous_scratch,
        &chroma_scratch, &device_chroma_scratch}) {
    if (BytesOf(*scratch) > kKeptScratchBytes) *scratch = std::vector<uint8_t>();
  }
  return result;
}

}  // namespace ssimd
