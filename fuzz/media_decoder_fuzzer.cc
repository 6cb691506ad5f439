// Fuzzes the demux and decode path of encoded inputs: VideoDecoder reading from memory (every
// container and codec Debian's FFmpeg has), then PictureScaler bringing each picture to a fixed
// target as a rendition would be brought to its source; odd-sized inputs decode one segment
// share of two (engine/media/segmented_decoding.h).
//
// Besides "no crash, no leak, no hang", it checks what the server relies on: errors are
// INVALID_ARGUMENT or RESOURCE_EXHAUSTED, never anything that would become INTERNAL; no picture
// exceeds the limits; every picture has the size and format the stream started with; the scaled
// picture has the target's size and format.
#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"
#include "engine/media/frame_planes.h"
#include "engine/media/picture_scaler.h"
#include "engine/media/video_decoder.h"
#include "fuzz/fuzz_support.h"

namespace ssimd {
namespace {

// Small limits keep each execution fast; the limits are what is under test, not their size.
constexpr int kMaxDimension = 1024;
constexpr int64_t kMaxPixels = 1 << 18;
constexpr int kMaxFrames = 8;
constexpr int kTargetWidth = 48;
constexpr int kTargetHeight = 32;

bool ExpectedCode(absl::StatusCode code) {
  return code == absl::StatusCode::kInvalidArgument ||
         code == absl::StatusCode::kResourceExhausted;
}

void Run(const uint8_t* data, size_t size) {
  const absl::string_view bytes(reinterpret_cast<const char*>(data), size);
  DecodeLimits limits;
  limits.max_dimension = kMaxDimension;
  limits.max_pixels = kMaxPixels;
  auto decoder = VideoDecoder::OpenMemory(bytes, "input", limits);
  if (!decoder.ok()) {
    FUZZ_CHECK(ExpectedCode(decoder.status().code()), "open: %s",
               decoder.status().ToString().c_str());
    return;
  }
  // Inputs of odd length are decoded as the first of two segment shares (segmented decoding):
  // the share's segments fed back to back, and the draining after an error, meet hostile
  // streams too.
  if (size % 2 == 1) (*decoder)->DecodeSegmentShare({0, 2, 1});
  const VideoStreamInfo& info = (*decoder)->info();
  FUZZ_CHECK(info.width <= kMaxDimension && info.height <= kMaxDimension,
             "declared %dx%d passed the limits", info.width, info.height);
  PictureScaler scaler(kTargetWidth, kTargetHeight, AV_PIX_FMT_YUV420P, ScalerChoice());
  std::string luma;
  for (int i = 0; i < kMaxFrames; ++i) {
    absl::StatusOr<const AVFrame*> frame = (*decoder)->Next();
    if (!frame.ok()) {
      FUZZ_CHECK(ExpectedCode(frame.status().code()), "frame %d: %s", i,
                 frame.status().ToString().c_str());
      return;
    }
    if (*frame == nullptr) return;
    const AVFrame& picture = **frame;
    FUZZ_CHECK(static_cast<int64_t>(picture.width) * picture.height <= kMaxPixels,
               "decoded %dx%d passed the limits", picture.width, picture.height);
    FUZZ_CHECK(picture.width == (*decoder)->info().width &&
                   picture.height == (*decoder)->info().height,
               "picture %d is %dx%d, the stream %dx%d", i, picture.width, picture.height,
               (*decoder)->info().width, (*decoder)->info().height);
    absl::StatusOr<const AVFrame*> scaled = scaler.Convert(picture);
    if (!scaled.ok()) {
      // Formats libswscale cannot convert are refused, not crashed on.
      FUZZ_CHECK(ExpectedCode(scaled.status().code()), "scale: %s",
                 scaled.status().ToString().c_str());
      continue;
    }
    FUZZ_CHECK((*scaled)->width == kTargetWidth && (*scaled)->height == kTargetHeight &&
                   (*scaled)->format == AV_PIX_FMT_YUV420P,
               "scaled to %dx%d format %d", (*scaled)->width, (*scaled)->height,
               (*scaled)->format);
    CopyLuma(**scaled, &luma);
    FUZZ_CHECK(luma.size() == static_cast<size_t>(kTargetWidth) * kTargetHeight,
               "luma of %zu bytes", luma.size());
  }
}

}  // namespace
}  // namespace ssimd

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ssimd::Run(data, size);
  return 0;
}
