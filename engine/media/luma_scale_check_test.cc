// The plans and the host model against libswscale itself (through PictureScaler, which
// picture_scaler_test holds byte-identical to the ffmpeg command): synthetic pictures of many
// geometries and every rendition of the ladder, every scaler the plans cover, both roundings.
#include "engine/media/luma_scale_check.h"

#include <fcntl.h>

#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "engine/luma_scale_host.h"
#include "engine/luma_scale_plan.h"
#include "engine/media/av_handles.h"
#include "engine/media/pixel_formats.h"
#include "engine/media/test_media.h"
#include "engine/media/video_decoder.h"
#include "engine/picture.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace ssimd {
namespace {

using ::testing::HasSubstr;

constexpr ScalerKind kPlannedKinds[] = {ScalerKind::kBicubic, ScalerKind::kBilinear,
                                        ScalerKind::kLanczos, ScalerKind::kSpline};

int LumaDepth(AVPixelFormat format) {
  return format == AV_PIX_FMT_YUV420P10LE ? 10 : 8;
}

// A photo-like picture unlike the check's own: smooth gradients, a few hard edges, mild noise.
AvFramePtr MakePicture(int width, int height, AVPixelFormat format, uint32_t seed) {
  AvFramePtr frame(av_frame_alloc());
  frame->width = width;
  frame->height = height;
  frame->format = format;
  if (av_frame_get_buffer(frame.get(), 0) < 0) return nullptr;
  const int depth = LumaDepth(format);
  const int peak = (1 << depth) - 1;
  uint32_t state = seed * 2654435761u + 1;
  for (int plane = 0; plane < 3; ++plane) {
    const int w = plane == 0 ? width : (width + 1) / 2;
    const int h = plane == 0 ? height : (height + 1) / 2;
    for (int y = 0; y < h; ++y) {
      uint8_t* row = frame->data[plane] + static_cast<size_t>(y) * frame->linesize[plane];
      for (int x = 0; x < w; ++x) {
        state = state * 1664525u + 1013904223u;
        int v = (x * 3 + y * 2) % (peak + 1);
        if ((x / 37 + y / 23) % 3 == 0) v = peak - v;
        if (x % 97 < 3) v = peak;
        v += static_cast<int>(state >> 29) - 4;
        v = v < 0 ? 0 : (v > peak ? peak : v);
        StoreSample(row, x, depth, static_cast<uint32_t>(v));
      }
    }
  }
  return frame;
}

// Scales `in` with the plan on the host and with libswscale, and says where they first differ:
// the luma, and the chroma planes too where the plan has a chroma plan.
std::string Difference(const LumaScalePlan& plan, const AVFrame& in, AVPixelFormat dst_format,
                       const ScalerChoice& choice) {
  PictureScaler scaler(plan.dst_width, plan.dst_height, dst_format, choice);
  absl::StatusOr<const AVFrame*> theirs = scaler.Convert(in);
  if (!theirs.ok()) return theirs.status().ToString();
  const int bytes = BytesPerSample(plan.bit_depth);
  for (int p = 0; p < (plan.chroma != nullptr ? 3 : 1); ++p) {
    const LumaScalePlan& plane = p == 0 ? plan : *plan.chroma;
    const size_t row_bytes = static_cast<size_t>(plane.dst_width) * bytes;
    std::vector<uint8_t> mine(row_bytes * plane.dst_height);
    ScaleLumaOnHost(plane, in.data[p], in.linesize[p], mine.data(), row_bytes);
    for (int y = 0; y < plane.dst_height; ++y) {
      const uint8_t* a = mine.data() + y * row_bytes;
      const uint8_t* b = (*theirs)->data[p] + static_cast<size_t>(y) * (*theirs)->linesize[p];
      for (size_t i = 0; i < row_bytes; ++i) {
        if (a[i] != b[i]) {
          return absl::StrFormat("plane %d: first difference at (%d, %d): plan %d, libswscale %d",
                                 p, static_cast<int>(i) / bytes, y, a[i], b[i]);
        }
      }
    }
  }
  return "";
}

struct Case {
  int src_width, src_height, dst_width, dst_height;
  AVPixelFormat format;
};

TEST(LumaScaleCheck, SyntheticPicturesMatchLibswscale) {
  const Case cases[] = {
      {426, 240, 1920, 1080, AV_PIX_FMT_YUV420P},   {640, 360, 1920, 1080, AV_PIX_FMT_YUV420P},
      {1280, 720, 1920, 1080, AV_PIX_FMT_YUV420P},  {960, 540, 1920, 1080, AV_PIX_FMT_YUV420P},
      {37, 19, 101, 67, AV_PIX_FMT_YUV420P},        {1000, 700, 1001, 1080, AV_PIX_FMT_YUV420P},
      {1920, 1080, 1920, 800, AV_PIX_FMT_YUV420P},  {1920, 1080, 1280, 720, AV_PIX_FMT_YUV420P},
      {3840, 2160, 640, 360, AV_PIX_FMT_YUV420P},   {960, 540, 1920, 1080, AV_PIX_FMT_YUV420P10LE},
      {426, 240, 3840, 2160, AV_PIX_FMT_YUV420P10LE}, {1280, 720, 1920, 1080, AV_PIX_FMT_YUV420P10LE},
  };
  int compared = 0;
  int with_chroma = 0;
  for (const Case& c : cases) {
    AvFramePtr in = MakePicture(c.src_width, c.src_height, c.format, c.src_width + c.dst_height);
    ASSERT_NE(in, nullptr);
    for (ScalerKind kind : kPlannedKinds) {
      for (bool accurate : {false, true}) {
        const ScalerChoice choice{kind, accurate};
        const std::string what =
            absl::StrFormat("%dx%d -> %dx%d %s %s", c.src_width, c.src_height, c.dst_width,
                            c.dst_height, PixelFormatName(c.format), SwsFlagsText(choice));
        absl::StatusOr<LumaScalePlan> plan =
            PlanLumaScale(c.src_width, c.src_height, c.dst_width, c.dst_height,
                          LumaDepth(c.format), choice, ExpectedVerticalRounding(choice));
        ASSERT_TRUE(plan.ok()) << what << ": " << plan.status();
        absl::StatusOr<LumaScalePlan> chroma = PlanChromaScale(*plan, ChromaFormat::k420, choice);
        if (chroma.ok()) {
          plan->chroma = std::make_shared<const LumaScalePlan>(*std::move(chroma));
          ++with_chroma;
        } else {
          // Chroma planes under 16 samples a side, as the 37x19 picture's.
          EXPECT_EQ(chroma.status().code(), absl::StatusCode::kFailedPrecondition) << what;
        }
        EXPECT_EQ(Difference(*plan, *in, c.format, choice), "") << what;
        ++compared;
      }
    }
  }
  EXPECT_EQ(compared, 12 * 4 * 2);
  EXPECT_EQ(with_chroma, 11 * 4 * 2);
}

// The other rounding really differs: the comparison above can tell them apart.
TEST(LumaScaleCheck, TheTwoEightBitRoundingsGiveDifferentBytes) {
  AvFramePtr in = MakePicture(640, 360, AV_PIX_FMT_YUV420P, 7);
  ASSERT_NE(in, nullptr);
  const ScalerChoice choice{ScalerKind::kBicubic, false};
  absl::StatusOr<LumaScalePlan> plan = PlanLumaScale(640, 360, 1920, 1080, 8, choice,
                                                     ExpectedVerticalRounding(choice));
  ASSERT_TRUE(plan.ok()) << plan.status();
  plan->rounding = plan->rounding == VerticalRounding::kWide ? VerticalRounding::kPackedWords
                                                             : VerticalRounding::kWide;
  EXPECT_THAT(Difference(*plan, *in, AV_PIX_FMT_YUV420P, choice), HasSubstr("first difference"));
}

// Every picture of every rendition that the ladder upscales, decoded as the server decodes it,
// chroma planes included.
TEST(LumaScaleCheck, EveryUpscaledLadderRenditionMatchesLibswscale) {
  struct Rendition {
    const char* file;
    AVPixelFormat format;
  };
  const Rendition renditions[] = {
      {"h264_1280x720.mp4", AV_PIX_FMT_YUV420P}, {"h264_960x540.mp4", AV_PIX_FMT_YUV420P},
      {"h264_640x360.mp4", AV_PIX_FMT_YUV420P},  {"h264_426x240.mp4", AV_PIX_FMT_YUV420P},
      {"hevc_1280x720.mkv", AV_PIX_FMT_YUV420P}, {"vp9_960x540.webm", AV_PIX_FMT_YUV420P},
      {"hevc10_960x540.mkv", AV_PIX_FMT_YUV420P10LE},
  };
  int pictures = 0;
  for (const Rendition& r : renditions) {
    const std::string path = LadderFile(r.file);
    for (ScalerKind kind : kPlannedKinds) {
      for (bool accurate : {false, true}) {
        // Bicubic (the default) on every picture; the other scalers on the first few.
        const int limit = kind == ScalerKind::kBicubic ? 1 << 30 : 3;
        const ScalerChoice choice{kind, accurate};
        auto decoder = VideoDecoder::OpenFd(::open(path.c_str(), O_RDONLY), path, DecodeLimits());
        ASSERT_TRUE(decoder.ok()) << decoder.status();
        absl::StatusOr<LumaScalePlan> plan;
        for (int n = 0; n < limit; ++n) {
          absl::StatusOr<const AVFrame*> frame = (*decoder)->Next();
          ASSERT_TRUE(frame.ok()) << frame.status();
          if (*frame == nullptr) break;
          ASSERT_EQ((*frame)->format, r.format) << r.file;
          if (n == 0) {
            const CheckedPlan checked = CachedPlanCheckedAgainstLibswscale(
                {(*frame)->width, (*frame)->height, r.format, (*frame)->color_range, 1920, 1080,
                 r.format, choice, /*with_chroma=*/true});
            ASSERT_NE(checked.plan, nullptr)
                << r.file << " " << SwsFlagsText(choice) << ": " << checked.why;
            ASSERT_NE(checked.plan->chroma, nullptr) << r.file;
            plan = *checked.plan;
            EXPECT_EQ(plan->rounding, LumaDepth(r.format) == 8 ? ExpectedVerticalRounding(choice)
                                                               : VerticalRounding::kWide);
          }
          EXPECT_EQ(Difference(*plan, **frame, r.format, choice), "")
              << r.file << " " << SwsFlagsText(choice) << " picture " << n;
          ++pictures;
        }
      }
    }
  }
  // 7 renditions of 24 pictures with bicubic twice, 3 pictures with each other scaler twice.
  EXPECT_EQ(pictures, 7 * (2 * 24 + 3 * 2 * 3));
}

TEST(LumaScaleCheck, RefusesWhatNoPlanReproduces) {
  const ScalerChoice bicubic{ScalerKind::kBicubic, false};
  auto refused = [](const CheckedPlan& p, UpscaleRefusal refusal, const std::string& text) {
    EXPECT_EQ(p.plan, nullptr);
    EXPECT_EQ(UpscaleRefusalLabel(p.refusal), UpscaleRefusalLabel(refusal));
    EXPECT_EQ(p.why.code(), absl::StatusCode::kFailedPrecondition) << p.why;
    EXPECT_THAT(std::string(p.why.message()), HasSubstr(text));
  };
  refused(PlanCheckedAgainstLibswscale({640, 360, AV_PIX_FMT_YUV420P, AVCOL_RANGE_JPEG, 1920,
                                        1080, AV_PIX_FMT_YUV420P, bicubic}),
          UpscaleRefusal::kFormat, "full-range");
  refused(PlanCheckedAgainstLibswscale({640, 360, AV_PIX_FMT_YUV420P10LE,
                                        AVCOL_RANGE_UNSPECIFIED, 1920, 1080, AV_PIX_FMT_YUV420P,
                                        bicubic}),
          UpscaleRefusal::kFormat, "one luma depth");
  refused(PlanCheckedAgainstLibswscale({640, 360, AV_PIX_FMT_RGB24, AVCOL_RANGE_UNSPECIFIED, 1920,
                                        1080, AV_PIX_FMT_YUV420P, bicubic}),
          UpscaleRefusal::kFormat, "planar limited-range");
  refused(PlanCheckedAgainstLibswscale({640, 360, AV_PIX_FMT_YUV420P, AVCOL_RANGE_MPEG, 1920, 1080,
                                        AV_PIX_FMT_YUV420P, {ScalerKind::kNeighbor, false}}),
          UpscaleRefusal::kScaler, "neighbor");
  refused(PlanCheckedAgainstLibswscale({1920, 1080, AV_PIX_FMT_YUV420P, AVCOL_RANGE_MPEG, 1280,
                                        720, AV_PIX_FMT_YUV420P, bicubic}),
          UpscaleRefusal::kGeometry, "not an upscale");
  refused(PlanCheckedAgainstLibswscale({1280, 1080, AV_PIX_FMT_YUV420P, AVCOL_RANGE_MPEG, 1920,
                                        1080, AV_PIX_FMT_YUV420P, bicubic}),
          UpscaleRefusal::kGeometry, "equal heights");
  // Chroma converted to another layout: the luma alone is planned, not the chroma; chroma
  // planes under 16 samples a side are not planned either.
  const LumaScaleRequest converted{640, 360, AV_PIX_FMT_YUV420P, AVCOL_RANGE_MPEG, 1920, 1080,
                                   AV_PIX_FMT_YUV444P, bicubic};
  EXPECT_NE(PlanCheckedAgainstLibswscale(converted).plan, nullptr);
  LumaScaleRequest with_chroma = converted;
  with_chroma.with_chroma = true;
  refused(PlanCheckedAgainstLibswscale(with_chroma), UpscaleRefusal::kFormat, "another layout");
  refused(PlanCheckedAgainstLibswscale({24, 24, AV_PIX_FMT_YUV420P, AVCOL_RANGE_MPEG, 96, 96,
                                        AV_PIX_FMT_YUV420P, bicubic, /*with_chroma=*/true}),
          UpscaleRefusal::kGeometry, "chroma planes");
}

// A geometry is checked once; later requests get the same plan.
TEST(LumaScaleCheck, TheCacheHandsOutOnePlanPerGeometry) {
  const LumaScaleRequest request{640, 360, AV_PIX_FMT_YUV420P, AVCOL_RANGE_MPEG, 1920, 1080,
                                 AV_PIX_FMT_YUV420P, {ScalerKind::kBicubic, true}};
  const CheckedPlan first = CachedPlanCheckedAgainstLibswscale(request);
  ASSERT_NE(first.plan, nullptr) << first.why;
  EXPECT_EQ(first.plan->rounding, VerticalRounding::kWide);  // accurate_rnd: the C rounding
  EXPECT_EQ(CachedPlanCheckedAgainstLibswscale(request).plan, first.plan);
}


}  // namespace
}  // namespace ssimd
