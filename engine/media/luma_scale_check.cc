#include "engine/media/luma_scale_check.h"

#include <cstdint>
#include <cstring>
#include <map>
#include <tuple>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_format.h"
#include "absl/synchronization/mutex.h"
#include "engine/luma_scale_host.h"
#include "engine/media/av_handles.h"
#include "engine/media/pixel_formats.h"
#include "engine/picture.h"

extern "C" {
#include <libavutil/pixdesc.h>
}

namespace ssimd {
namespace {

// Luma depth of a planar, little-endian, limited-range YUV format; 0 for anything else.
int PlannableLumaDepth(AVPixelFormat format) {
  const AVPixFmtDescriptor* d = av_pix_fmt_desc_get(format);
  if (d == nullptr || d->nb_components < 3) return 0;
  constexpr uint64_t kExcluded = AV_PIX_FMT_FLAG_BE | AV_PIX_FMT_FLAG_RGB | AV_PIX_FMT_FLAG_PAL |
                                 AV_PIX_FMT_FLAG_FLOAT | AV_PIX_FMT_FLAG_BAYER |
                                 AV_PIX_FMT_FLAG_HWACCEL | AV_PIX_FMT_FLAG_ALPHA;
  if ((d->flags & AV_PIX_FMT_FLAG_PLANAR) == 0 || (d->flags & kExcluded) != 0) return 0;
  // The "yuvj" formats are full range: libswscale converts their range.
  if (format == AV_PIX_FMT_YUVJ420P || format == AV_PIX_FMT_YUVJ422P ||
      format == AV_PIX_FMT_YUVJ444P || format == AV_PIX_FMT_YUVJ440P ||
      format == AV_PIX_FMT_YUVJ411P) {
    return 0;
  }
  if (d->comp[0].plane != 0 || d->comp[0].step != BytesPerSample(d->comp[0].depth)) return 0;
  return d->comp[0].depth;
}

// The chroma layout of a format PlannableLumaDepth accepts.
absl::StatusOr<ChromaFormat> PlannableChroma(AVPixelFormat format) {
  absl::StatusOr<Geometry> geometry = GeometryForPixelFormat(format, 64, 64);
  if (!geometry.ok()) return geometry.status();
  return geometry->chroma;
}

// Noise over the whole range, with stripes of black and white that make the kernels overshoot
// and clip: every rounding path of both passes gets exercised, in every plane.
void FillCheckPlane(uint8_t* data, int linesize, int width, int height, int bit_depth,
                    uint64_t seed) {
  const uint32_t peak = (1u << bit_depth) - 1;
  uint64_t state = 0x9e3779b97f4a7c15ull ^ seed ^ (static_cast<uint64_t>(width) << 32) ^
                   static_cast<uint64_t>(height);
  for (int y = 0; y < height; ++y) {
    uint8_t* row = data + static_cast<size_t>(y) * linesize;
    for (int x = 0; x < width; ++x) {
      state ^= state << 13;
      state ^= state >> 7;
      state ^= state << 17;
      uint32_t v = static_cast<uint32_t>(state >> 40) & peak;
      if (((x >> 4) + (y >> 4)) % 5 == 0) v = ((x ^ y) & 1) != 0 ? peak : 0;
      StoreSample(row, x, bit_depth, v);
    }
  }
}

void FillCheckPicture(AVFrame* frame, int bit_depth) {
  const AVPixFmtDescriptor* d = av_pix_fmt_desc_get(static_cast<AVPixelFormat>(frame->format));
  for (int plane = 0; plane < 3; ++plane) {
    const int shift_w = plane == 0 ? 0 : d->log2_chroma_w;
    const int shift_h = plane == 0 ? 0 : d->log2_chroma_h;
    FillCheckPlane(frame->data[plane], frame->linesize[plane],
                   AV_CEIL_RSHIFT(frame->width, shift_w), AV_CEIL_RSHIFT(frame->height, shift_h),
                   bit_depth, static_cast<uint64_t>(plane) << 56);
  }
}

// Whether `plan` run on the host over plane `plane` of `input` gives libswscale's plane `theirs`.
bool SamePlane(const LumaScalePlan& plan, const AVFrame& input, const AVFrame& theirs, int plane,
               std::vector<uint8_t>& mine) {
  const size_t row_bytes = static_cast<size_t>(plan.dst_width) * BytesPerSample(plan.bit_depth);
  mine.resize(row_bytes * plan.dst_height);
  ScaleLumaOnHost(plan, input.data[plane], input.linesize[plane], mine.data(), row_bytes);
  for (int y = 0; y < plan.dst_height; ++y) {
    if (std::memcmp(mine.data() + y * row_bytes,
                    theirs.data[plane] + static_cast<size_t>(y) * theirs.linesize[plane],
                    row_bytes) != 0) {
      return false;
    }
  }
  return true;
}

FilterAlignment BuildAlignment() {
#if defined(__x86_64__) || defined(__aarch64__)
  return FilterAlignment{4, 2};
#else
  return FilterAlignment{1, 1};
#endif
}

}  // namespace

VerticalRounding ExpectedVerticalRounding(const ScalerChoice& choice) {
#if defined(__x86_64__)
  return choice.accurate_rounding ? VerticalRounding::kWide : VerticalRounding::kPackedWords;
#else
  (void)choice;
  return VerticalRounding::kWide;
#endif
}

std::string UpscaleRefusalLabel(UpscaleRefusal refusal) {
  switch (refusal) {
    case UpscaleRefusal::kNone: return "none";
    case UpscaleRefusal::kFormat: return "format";
    case UpscaleRefusal::kScaler: return "scaler";
    case UpscaleRefusal::kGeometry: return "geometry";
    case UpscaleRefusal::kMismatch: return "mismatch";
    case UpscaleRefusal::kError: return "error";
  }
  return "error";
}

namespace {

CheckedPlan Refused(UpscaleRefusal refusal, absl::Status why) {
  CheckedPlan out;
  out.refusal = refusal;
  out.why = std::move(why);
  return out;
}

}  // namespace

CheckedPlan PlanCheckedAgainstLibswscale(const LumaScaleRequest& request) {
  const int depth = PlannableLumaDepth(request.src_format);
  if (depth == 0 || depth != PlannableLumaDepth(request.dst_format)) {
    return Refused(UpscaleRefusal::kFormat,
                   absl::FailedPreconditionError(absl::StrFormat(
                       "%s -> %s: only planar limited-range YUV of one luma depth is scaled off "
                       "the CPU",
                       PixelFormatName(request.src_format), PixelFormatName(request.dst_format))));
  }
  if (request.src_range == AVCOL_RANGE_JPEG) {
    return Refused(UpscaleRefusal::kFormat,
                   absl::FailedPreconditionError(
                       "full-range input: libswscale converts its range, which is done on the CPU"));
  }
  if (request.choice.kind == ScalerKind::kNeighbor) {
    return Refused(UpscaleRefusal::kScaler,
                   absl::FailedPreconditionError(
                       "neighbor: libswscale's one-tap passes are not reproduced off the CPU"));
  }
  if (static_cast<int64_t>(request.src_width) * request.src_height >=
      static_cast<int64_t>(request.dst_width) * request.dst_height) {
    return Refused(UpscaleRefusal::kGeometry,
                   absl::FailedPreconditionError(absl::StrFormat(
                       "%dx%d -> %dx%d is not an upscale: the CPU scales it", request.src_width,
                       request.src_height, request.dst_width, request.dst_height)));
  }
  const VerticalRounding expected = ExpectedVerticalRounding(request.choice);
  absl::StatusOr<LumaScalePlan> plan =
      PlanLumaScale(request.src_width, request.src_height, request.dst_width, request.dst_height,
                    depth, request.choice, expected, BuildAlignment());
  if (!plan.ok()) {
    return Refused(plan.status().code() == absl::StatusCode::kFailedPrecondition
                       ? UpscaleRefusal::kGeometry
                       : UpscaleRefusal::kError,
                   plan.status());
  }

  AvFramePtr input(av_frame_alloc());
  if (input == nullptr) {
    return Refused(UpscaleRefusal::kError,
                   absl::ResourceExhaustedError("out of memory for a test picture"));
  }
  input->width = request.src_width;
  input->height = request.src_height;
  input->format = request.src_format;
  input->color_range = request.src_range;
  if (av_frame_get_buffer(input.get(), 0) < 0) {
    return Refused(UpscaleRefusal::kError,
                   absl::ResourceExhaustedError("out of memory for a test picture"));
  }
  FillCheckPicture(input.get(), depth);
  PictureScaler scaler(request.dst_width, request.dst_height, request.dst_format, request.choice);
  absl::StatusOr<const AVFrame*> theirs = scaler.Convert(*input);
  if (!theirs.ok()) return Refused(UpscaleRefusal::kError, theirs.status());

  std::vector<uint8_t> mine;
  // The expected rounding first; the other one only if libswscale turns out to use it here.
  bool luma_matches = false;
  for (int attempt = 0; attempt < 2 && !luma_matches; ++attempt) {
    luma_matches = SamePlane(*plan, *input, **theirs, 0, mine);
    if (luma_matches || depth != 8) break;
    plan->rounding = plan->rounding == VerticalRounding::kWide ? VerticalRounding::kPackedWords
                                                               : VerticalRounding::kWide;
  }
  const auto mismatch = [&](const char* planes) {
    return Refused(UpscaleRefusal::kMismatch,
                   absl::FailedPreconditionError(absl::StrFormat(
                       "%dx%d -> %dx%d with %s: libswscale's %s on this machine differs from the "
                       "plan's",
                       request.src_width, request.src_height, request.dst_width,
                       request.dst_height, SwsFlagsText(request.choice), planes)));
  };
  if (!luma_matches) return mismatch("luma");
  if (request.with_chroma) {
    // libswscale scales the chroma with the luma's rounding: one SwsContext, one output path.
    absl::StatusOr<ChromaFormat> format = PlannableChroma(request.src_format);
    absl::StatusOr<ChromaFormat> target = PlannableChroma(request.dst_format);
    if (!format.ok() || !target.ok() || *format != *target) {
      return Refused(UpscaleRefusal::kFormat,
                     absl::FailedPreconditionError(absl::StrFormat(
                         "%s -> %s: chroma of another layout, or converted to one, is scaled on "
                         "the CPU",
                         PixelFormatName(request.src_format),
                         PixelFormatName(request.dst_format))));
    }
    absl::StatusOr<LumaScalePlan> chroma =
        PlanChromaScale(*plan, *format, request.choice, BuildAlignment());
    if (!chroma.ok()) {
      return Refused(chroma.status().code() == absl::StatusCode::kFailedPrecondition
                         ? UpscaleRefusal::kGeometry
                         : UpscaleRefusal::kError,
                     chroma.status());
    }
    for (int plane = 1; plane < 3; ++plane) {
      if (!SamePlane(*chroma, *input, **theirs, plane, mine)) return mismatch("chroma");
    }
    plan->chroma = std::make_shared<const LumaScalePlan>(*std::move(chroma));
  }
  CheckedPlan out;
  out.plan = std::make_shared<const LumaScalePlan>(*std::move(plan));
  return out;
}

CheckedPlan CachedPlanCheckedAgainstLibswscale(const LumaScaleRequest& request) {
  using Key = std::tuple<int, int, int, int, int, int, int, int, bool, bool>;
  constexpr size_t kKept = 256;
  static absl::Mutex mu;
  static auto* const cache ABSL_GUARDED_BY(mu) = new std::map<Key, CheckedPlan>();
  const Key key{request.src_width,  request.src_height, request.src_format,
                request.src_range,  request.dst_width,  request.dst_height,
                request.dst_format, static_cast<int>(request.choice.kind),
                request.choice.accurate_rounding, request.with_chroma};
  {
    absl::MutexLock lock(&mu);
    auto it = cache->find(key);
    if (it != cache->end()) return it->second;
  }
  // Checked outside the lock: two callers may check one geometry at once, with one result.
  CheckedPlan checked = PlanCheckedAgainstLibswscale(request);
  if (checked.refusal == UpscaleRefusal::kError) return checked;  // not remembered
  absl::MutexLock lock(&mu);
  if (cache->size() >= kKept) cache->clear();
  cache->emplace(key, checked);
  return checked;
}

}  // namespace ssimd
