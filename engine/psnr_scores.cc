#include "engine/psnr_scores.h"

#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "engine/device_plane.h"
#include "kernels/psnr_math.h"

namespace ssimd {
namespace {

constexpr char kPsnrSsePrefix[] = "psnr_sse_";
constexpr char kPsnrPixelsPrefix[] = "psnr_pixels_";
constexpr char kPsnrPeakSum[] = "psnr_peak";

}  // namespace

const char* PsnrPlaneSuffix(int plane) {
  static constexpr const char* kSuffix[3] = {"y", "cb", "cr"};
  return kSuffix[plane];
}

PlaneSize PsnrPlaneSize(const Geometry& geometry, int plane) {
  if (plane == 0) return {geometry.width, geometry.height};
  if (geometry.chroma == ChromaFormat::k400) return {};
  const bool halve_width = geometry.chroma != ChromaFormat::k444;
  const bool halve_height = geometry.chroma == ChromaFormat::k420;
  return {halve_width ? geometry.width >> 1 : geometry.width,
          halve_height ? geometry.height >> 1 : geometry.height};
}

namespace {

// The sizes of a picture's Cb and Cr views: libvmaf's (PsnrPlaneSize), or with `whole` the stored
// planes'; no data yet.
std::array<LumaView, 2> SizedChromaViews(const Geometry& geometry, bool whole) {
  std::array<LumaView, 2> views;
  for (int p = 0; p < 2; ++p) {
    const PlaneSize size = whole ? StoredChromaSize(geometry) : PsnrPlaneSize(geometry, p + 1);
    views[p].width = size.width;
    views[p].height = size.height;
    views[p].bit_depth = geometry.bit_depth;
  }
  return views;
}

// ChromaViews, or with `whole` views of the whole stored planes.
absl::StatusOr<std::array<LumaView, 2>> ViewsOfStoredChroma(const Geometry& geometry,
                                                            absl::Span<const uint8_t> stored,
                                                            absl::string_view what, bool whole) {
  const size_t sample_bytes = static_cast<size_t>(BytesPerSample(geometry.bit_depth));
  const PlaneSize plane = StoredChromaSize(geometry);
  const size_t plane_bytes =
      static_cast<size_t>(plane.width) * static_cast<size_t>(plane.height) * sample_bytes;
  if (stored.size() != 2 * plane_bytes) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: expected %d bytes (Cb then Cr, each %dx%d samples of %d byte(s) for a %dx%d %s "
        "picture), got %d",
        what, 2 * plane_bytes, plane.width, plane.height, sample_bytes, geometry.width,
        geometry.height, ChromaFormatName(geometry.chroma), stored.size()));
  }
  std::array<LumaView, 2> views = SizedChromaViews(geometry, whole);
  for (int p = 0; p < 2; ++p) {
    views[p].stride_bytes = static_cast<size_t>(plane.width) * sample_bytes;
    views[p].data = stored.data() + static_cast<size_t>(p) * plane_bytes;
  }
  return views;
}

// The views of a side whose chroma lies on a device: the sizes ViewsOfStoredChroma gives, no data.
absl::StatusOr<std::array<LumaView, 2>> ViewsOfDeviceChroma(const Geometry& geometry,
                                                            const DevicePlane& plane,
                                                            absl::string_view what, bool whole) {
  const PlaneSize stored = StoredChromaSize(geometry);
  const DevicePlaneLayout& l = plane.layout();
  if (l.interleaved_planes != 2 || l.width != stored.width || l.height != stored.height ||
      l.bit_depth != geometry.bit_depth) {
    return absl::InternalError(absl::StrFormat(
        "%s on the device is %d plane(s) of %dx%d at %d bits; expected Cb and Cr of %dx%d at %d",
        what, l.interleaved_planes, l.width, l.height, l.bit_depth, stored.width, stored.height,
        geometry.bit_depth));
  }
  return SizedChromaViews(geometry, whole);
}

}  // namespace

absl::StatusOr<std::array<LumaView, 2>> ChromaViews(const Geometry& geometry,
                                                    absl::Span<const uint8_t> stored,
                                                    absl::string_view what) {
  return ViewsOfStoredChroma(geometry, stored, what, /*whole=*/false);
}

absl::StatusOr<std::optional<FrameChroma>> PairChromaToScore(
    const Geometry& geometry, const FeatureSet& features, absl::Span<const uint8_t> reference,
    absl::Span<const uint8_t> distorted, absl::string_view reference_what,
    absl::string_view distorted_what, const LumaScalePlan* distorted_upscale,
    const ChromaOnDevice& on_device) {
  if (!FeaturesReadChroma(features, geometry.chroma)) return std::nullopt;
  Geometry distorted_geometry = geometry;
  if (distorted_upscale != nullptr) {
    absl::StatusOr<Geometry> input = PlanInputGeometry(*distorted_upscale, geometry);
    if (!input.ok()) return input.status();
    if (distorted_upscale->chroma == nullptr) {
      return absl::InternalError(absl::StrCat(distorted_what,
                                              ": its upscale has no plan for the chroma"));
    }
    distorted_geometry = *input;
  }
  FrameChroma chroma;
  chroma.reference_on_device = on_device.reference;
  chroma.distorted_on_device = on_device.distorted;
  const std::tuple<absl::Span<const uint8_t>, const DevicePlane*, absl::string_view,
                   std::array<LumaView, 2>*, const Geometry*, bool>
      sides[] = {{reference, on_device.reference, reference_what, &chroma.reference, &geometry,
                  false},
                 {distorted, on_device.distorted, distorted_what, &chroma.distorted,
                  &distorted_geometry, distorted_upscale != nullptr}};
  for (const auto& [bytes, device, what, views, side_geometry, whole] : sides) {
    if (device != nullptr) {
      absl::StatusOr<std::array<LumaView, 2>> sized =
          ViewsOfDeviceChroma(*side_geometry, *device, what, whole);
      if (!sized.ok()) return sized.status();
      *views = *sized;
      continue;
    }
    absl::StatusOr<std::array<LumaView, 2>> parsed =
        ViewsOfStoredChroma(*side_geometry, bytes, what, whole);
    if (!parsed.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          parsed.status().message(), bytes.empty() ? " (psnr with enable_chroma reads it)" : ""));
    }
    *views = *parsed;
  }
  return chroma;
}

absl::StatusOr<FrameChroma> ChromaOnHost(const FrameChroma& chroma,
                                         std::vector<uint8_t>& scratch) {
  FrameChroma host = chroma;
  const std::pair<const DevicePlane*, std::array<LumaView, 2>*> sides[] = {
      {chroma.reference_on_device, &host.reference},
      {chroma.distorted_on_device, &host.distorted}};
  size_t bytes = 0;
  for (const auto& [device, views] : sides) bytes += device != nullptr ? device->packed_bytes() : 0;
  if (bytes == 0) return host;
  scratch.resize(bytes);
  uint8_t* at = scratch.data();
  for (const auto& [device, views] : sides) {
    if (device == nullptr) continue;
    if (absl::Status copied = device->CopyToHost(at); !copied.ok()) return copied;
    const DevicePlaneLayout& l = device->layout();
    const size_t row_bytes = static_cast<size_t>(l.width) * BytesPerSample(l.bit_depth);
    for (LumaView& view : *views) {
      view.data = at;
      view.stride_bytes = row_bytes;
      at += row_bytes * l.height;
    }
  }
  host.reference_on_device = nullptr;
  host.distorted_on_device = nullptr;
  return host;
}

uint64_t ViewSquaredError(const LumaView& reference, const LumaView& distorted) {
  uint64_t sum = 0;
  for (int y = 0; y < reference.height; ++y) {
    for (int x = 0; x < reference.width; ++x) {
      sum += SampleSquaredError(reference.Sample(x, y), distorted.Sample(x, y));
    }
  }
  return sum;
}

absl::Status AddChromaPsnrScores(const Geometry& geometry, const PsnrOptions& options,
                                 const FrameChroma& chroma, FrameScores& scores,
                                 FrameSums& sums) {
  for (int p = 0; p < 2; ++p) {
    const PlaneSize size = PsnrPlaneSize(geometry, p + 1);
    for (const LumaView* view : {&chroma.reference[p], &chroma.distorted[p]}) {
      if (view->width != size.width || view->height != size.height ||
          view->bit_depth != geometry.bit_depth ||
          (view->data == nullptr && size.width > 0 && size.height > 0)) {
        return absl::InvalidArgumentError(absl::StrFormat(
            "psnr: the %s plane is %dx%d at %d bits; expected %dx%d at %d", PsnrPlaneSuffix(p + 1),
            view->width, view->height, view->bit_depth, size.width, size.height,
            geometry.bit_depth));
      }
    }
    AddPsnrPlaneScores(geometry, options, p + 1,
                       ViewSquaredError(chroma.reference[p], chroma.distorted[p]), scores, sums);
  }
  return absl::OkStatus();
}

void AddPsnrPlaneScores(const Geometry& geometry, const PsnrOptions& options, int plane,
                        uint64_t sse, FrameScores& scores, FrameSums& sums) {
  const PlaneSize size = PsnrPlaneSize(geometry, plane);
  const uint32_t pixels = PsnrPlanePixels(size.width, size.height);
  const uint32_t peak = PsnrPeak(geometry.bit_depth, options.reduced_hbd_peak);
  const double psnr_max = PsnrMax(geometry.bit_depth, peak, options.min_sse, pixels);
  const double mse = PsnrMse(sse, pixels);
  scores[absl::StrCat("psnr_", PsnrPlaneSuffix(plane))] = PsnrFromMse(mse, peak, psnr_max);
  if (options.enable_mse) scores[absl::StrCat("mse_", PsnrPlaneSuffix(plane))] = mse;
  if (!options.enable_apsnr) return;
  if (plane == 0) {
    // libvmaf pools all three planes whether or not chroma is scored.
    for (int p = 0; p < 3; ++p) {
      sums[absl::StrCat(kPsnrSsePrefix, PsnrPlaneSuffix(p))] = 0;
      sums[absl::StrCat(kPsnrPixelsPrefix, PsnrPlaneSuffix(p))] = 0;
    }
    sums[kPsnrPeakSum] = peak;
  }
  sums[absl::StrCat(kPsnrSsePrefix, PsnrPlaneSuffix(plane))] = sse;
  sums[absl::StrCat(kPsnrPixelsPrefix, PsnrPlaneSuffix(plane))] = pixels;
}

FrameScores ApsnrScores(const FrameSums& totals, uint64_t frames) {
  const auto peak_total = totals.find(kPsnrPeakSum);
  if (peak_total == totals.end() || frames == 0) return {};
  const uint32_t peak = static_cast<uint32_t>(peak_total->second / frames);
  FrameScores scores;
  for (int p = 0; p < 3; ++p) {
    const auto sum_of = [&](const char* prefix) -> uint64_t {
      const auto found = totals.find(absl::StrCat(prefix, PsnrPlaneSuffix(p)));
      return found == totals.end() ? 0 : found->second;
    };
    scores[absl::StrCat("apsnr_", PsnrPlaneSuffix(p))] =
        ApsnrScore(sum_of(kPsnrSsePrefix), sum_of(kPsnrPixelsPrefix), peak);
  }
  return scores;
}

}  // namespace ssimd
