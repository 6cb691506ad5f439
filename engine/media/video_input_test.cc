#include "engine/media/video_input.h"

#include <fcntl.h>

#include <cstdlib>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "engine/media/decode_error.h"
#include "engine/media/frame_planes.h"
#include "engine/media/luma_scale_check.h"
#include "engine/media/picture_scaler.h"
#include "engine/media/pixel_formats.h"
#include "engine/media/test_media.h"
#include "engine/media/video_decoder.h"
#include "gmock/gmock.h"
#include "engine/synthetic_picture.h"
#include "gtest/gtest.h"

namespace ssimd {
namespace {

TEST(VideoInputTest, KindFollowsTheExtension) {
  EXPECT_EQ(InputKindForPath("a/b.Y4M"), InputKind::kY4m);
  EXPECT_EQ(InputKindForPath("clip.yuv"), InputKind::kRawYuv);
  EXPECT_EQ(InputKindForPath("clip.raw"), InputKind::kRawYuv);
  EXPECT_EQ(InputKindForPath("clip.mp4"), InputKind::kEncoded);
  EXPECT_EQ(InputKindForPath("clip"), InputKind::kEncoded);
}

TEST(VideoInputTest, DecodedInputScalesToTheTarget) {
  const std::string path = LadderFile("h264_426x240.mp4");
  auto input = DecodedInput::Open(::open(path.c_str(), O_RDONLY), "h264_426x240.mp4", {});
  ASSERT_TRUE(input.ok()) << input.status();
  EXPECT_EQ((*input)->decoded_geometry().width, 426);
  EXPECT_EQ((*input)->decoded_geometry().bit_depth, 8);
  EXPECT_TRUE(SameFrameRate((*input)->frame_rate(), {24, 1}));
  (*input)->ScaleTo(Geometry{1920, 1080, 8, ChromaFormat::k420}, ScalerChoice());
  ASSERT_TRUE((*input)->Skip(20).ok());
  std::string luma;
  int frames = 0;
  while (true) {
    auto got = (*input)->ReadPlanes(&luma);
    ASSERT_TRUE(got.ok()) << got.status();
    if (!*got) break;
    EXPECT_EQ(luma.size(), 1920u * 1080);
    ++frames;
  }
  EXPECT_EQ(frames, 4);
}

// With the upscale left to the scorer, each picture comes at the file's size with its plan; the
// plan's host model then gives libswscale's bytes, as the check before it promised.
TEST(VideoInputTest, UpscaleLeftToTheScorerTravelsWithEachPicture) {
  const std::string path = LadderFile("h264_426x240.mp4");
  const Geometry target{1920, 1080, 8, ChromaFormat::k420};
  auto planned = DecodedInput::Open(::open(path.c_str(), O_RDONLY), "h264_426x240.mp4", {});
  auto scaled = DecodedInput::Open(::open(path.c_str(), O_RDONLY), "h264_426x240.mp4", {});
  ASSERT_TRUE(planned.ok() && scaled.ok());
  (*planned)->ScaleTo(target, ScalerChoice());
  (*scaled)->ScaleTo(target, ScalerChoice());
  const CheckedPlan checked = (*planned)->UpscaleOnScorer();
  if (checked.plan == nullptr) GTEST_SKIP() << "no plan here: " << checked.why.message();
  Picture picture;
  std::string luma;
  int frames = 0;
  while (true) {
    absl::StatusOr<bool> got = (*planned)->Read(&picture);
    absl::StatusOr<bool> reference = (*scaled)->ReadPlanes(&luma);
    ASSERT_TRUE(got.ok() && reference.ok());
    ASSERT_EQ(*got, *reference);
    if (!*got) break;
    ASSERT_FALSE(picture.on_device());
    ASSERT_TRUE(picture.needs_upscale());
    EXPECT_EQ(picture.upscale(), checked.plan.get());
    EXPECT_EQ(picture.geometry().width, 426);
    EXPECT_EQ(picture.geometry().height, 240);
    EXPECT_EQ(picture.host_luma().size(), 426u * 240);
    EXPECT_EQ(picture.scored_geometry().width, 1920);
    ASSERT_TRUE(picture.UpscaleOnHost().ok());
    ASSERT_TRUE(picture.TakeBuffer() == luma) << "frame " << frames;
    ++frames;
  }
  EXPECT_EQ(frames, 24);
}

// Several decoders for one file give the frames one decoder gives, upscaled the same way.
TEST(VideoInputTest, DecodingWithSeveralDecodersReadsTheSameFrames) {
  if (!HaveFfmpegCommand()) GTEST_SKIP() << "no ffmpeg command to encode the test file";
  const std::string path = absl::StrCat(std::getenv("TEST_TMPDIR"), "/short_groups.mp4");
  ASSERT_TRUE(RunFfmpegToFile({"-f", "lavfi", "-i", "testsrc2=size=320x180:rate=24",
                               "-frames:v", "100", "-c:v", "libx264", "-g", "12", "-pix_fmt",
                               "yuv420p"},
                              path)
                  .ok());
  const Geometry target{640, 360, 8, ChromaFormat::k420};
  std::vector<std::string> frames[2];
  for (int decoders : {1, 3}) {
    auto input = DecodedInput::Open(::open(path.c_str(), O_RDONLY), "short_groups.mp4", {});
    ASSERT_TRUE(input.ok()) << input.status();
    (*input)->ScaleTo(target, ScalerChoice());
    ASSERT_TRUE((*input)->DecodeWith(decoders).ok());
    ASSERT_TRUE((*input)->Skip(5).ok());
    std::string luma;
    while (true) {
      absl::StatusOr<bool> got = (*input)->ReadPlanes(&luma);
      ASSERT_TRUE(got.ok()) << got.status();
      if (!*got) break;
      frames[decoders > 1].push_back(luma);
    }
    EXPECT_EQ((*input)->frames_read(), 100u);
    EXPECT_EQ((*input)->decode_backend(), "cpu");
    EXPECT_EQ((*input)->media_info().width, 320);
  }
  ASSERT_EQ(frames[0].size(), 95u);
  ASSERT_EQ(frames[1].size(), frames[0].size());
  for (size_t i = 0; i < frames[0].size(); ++i) {
    ASSERT_TRUE(frames[0][i] == frames[1][i]) << "frame " << i;
  }
}

TEST(VideoInputTest, Y4mRateComesFromTheHeader) {
  const std::string path = absl::StrCat(std::getenv("TEST_TMPDIR"), "/rate.y4m");
  std::ofstream(path, std::ios::binary) << "YUV4MPEG2 W2 H2 F30000:1001 Cmono\nFRAME\nabcd";
  auto input = OpenRawInput(::open(path.c_str(), O_RDONLY), "rate.y4m", InputKind::kY4m, {});
  ASSERT_TRUE(input.ok()) << input.status();
  EXPECT_EQ(FrameRateText((*input)->frame_rate()), "30000/1001");
  auto count = (*input)->CountRemaining(0);
  ASSERT_TRUE(count.ok());
  EXPECT_EQ(*count, 1u);
}

TEST(VideoInputTest, RawInputsOverThePictureLimitAreRefusedBeforeAnyFrameIsRead) {
  DecodeLimits limits;
  limits.max_pixels = 1920 * 1088;
  limits.max_pixels_source = "--max_picture_pixels";
  // A header that claims 16000x16000 and no frame behind it.
  const std::string bomb = absl::StrCat(std::getenv("TEST_TMPDIR"), "/bomb.y4m");
  std::ofstream(bomb, std::ios::binary) << "YUV4MPEG2 W16000 H16000 F25:1 C444p16\nFRAME\n";
  auto y4m = OpenRawInput(::open(bomb.c_str(), O_RDONLY), "bomb.y4m", InputKind::kY4m, {}, limits);
  EXPECT_EQ(y4m.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(y4m.status().message(),
              ::testing::HasSubstr("bomb.y4m: the y4m header declares pictures of 16000x16000 = "
                                   "256000000 pixels a picture, over this server's limit of "
                                   "2088960 pixels a picture (--max_picture_pixels)"));
  EXPECT_EQ(DecodeErrorLabelOf(y4m.status()), "over_limits");
  // A raw file's size comes from the request.
  const std::string raw = absl::StrCat(std::getenv("TEST_TMPDIR"), "/big.yuv");
  std::ofstream(raw, std::ios::binary) << "x";
  auto yuv = OpenRawInput(::open(raw.c_str(), O_RDONLY), "big.yuv", InputKind::kRawYuv,
                          Geometry{3840, 2160, 8, ChromaFormat::k420}, limits);
  EXPECT_EQ(yuv.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(yuv.status().message(), ::testing::HasSubstr("3840x2160 = 8294400 pixels"));
  // Within the limit it opens, and holds one whole frame.
  auto fits = OpenRawInput(::open(raw.c_str(), O_RDONLY), "big.yuv", InputKind::kRawYuv,
                           Geometry{1920, 1080, 8, ChromaFormat::k420}, limits);
  ASSERT_TRUE(fits.ok()) << fits.status();
  EXPECT_EQ(RawPictureMemoryBytes((*fits)->geometry()), 1920 * 1080 * 3 / 2);
}

std::string AsString(absl::Span<const uint8_t> bytes) {
  return std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

std::unique_ptr<VideoInput> OpenRaw(const std::string& name, const std::string& bytes,
                                    InputKind kind, const std::optional<Geometry>& geometry) {
  const std::string path = absl::StrCat(std::getenv("TEST_TMPDIR"), "/", name);
  std::ofstream(path, std::ios::binary) << bytes;
  auto input = OpenRawInput(::open(path.c_str(), O_RDONLY), name, kind, geometry);
  EXPECT_TRUE(input.ok()) << input.status();
  return input.ok() ? *std::move(input) : nullptr;
}

TEST(VideoInputTest, RawInputKeepingChromaHandsOverWholeFrames) {
  const Geometry g{5, 3, 8, ChromaFormat::k420};
  std::unique_ptr<VideoInput> input = OpenRaw(
      "chroma.yuv", MarkedFrame(g, 0) + MarkedFrame(g, 1) + MarkedFrame(g, 2),
      InputKind::kRawYuv, g);
  ASSERT_NE(input, nullptr);
  EXPECT_FALSE(input->keeps_chroma());
  input->KeepChroma();
  EXPECT_TRUE(input->keeps_chroma());
  Picture picture;
  ASSERT_TRUE(*input->Read(&picture));
  EXPECT_TRUE(picture.has_chroma());
  EXPECT_EQ(AsString(picture.host_luma()), MarkedFrame(g, 0).substr(0, LumaBytes(g)));
  EXPECT_EQ(AsString(picture.host_chroma()), MarkedFrame(g, 0).substr(LumaBytes(g)));
  std::string planes;
  ASSERT_TRUE(*input->ReadPlanes(&planes));
  EXPECT_EQ(planes, MarkedFrame(g, 1));
  ASSERT_TRUE(input->positional());
  ASSERT_TRUE(*input->ReadPlanesAt(2, &planes));
  EXPECT_EQ(planes, MarkedFrame(g, 2));
}

TEST(VideoInputTest, MonochromeRawInputHasNoChromaToKeep) {
  const Geometry g{2, 2, 8, ChromaFormat::k400};
  std::unique_ptr<VideoInput> input =
      OpenRaw("mono.y4m", absl::StrCat("YUV4MPEG2 W2 H2 Cmono\nFRAME\n", MarkedFrame(g, 3)),
              InputKind::kY4m, std::nullopt);
  ASSERT_NE(input, nullptr);
  input->KeepChroma();
  EXPECT_FALSE(input->keeps_chroma());
  Picture picture;
  ASSERT_TRUE(*input->Read(&picture));
  EXPECT_FALSE(picture.has_chroma());
  EXPECT_EQ(AsString(picture.host_luma()), MarkedFrame(g, 3));
}

TEST(VideoInputTest, KeepChromaLikeRefusesADistortedFileOfAnotherChromaLayout) {
  const Geometry g420{4, 2, 8, ChromaFormat::k420};
  const Geometry g444{4, 2, 8, ChromaFormat::k444};
  std::unique_ptr<VideoInput> reference =
      OpenRaw("ref.yuv", MarkedFrame(g420, 0), InputKind::kRawYuv, g420);
  std::unique_ptr<VideoInput> other = OpenRaw(
      "dis444.y4m", absl::StrCat("YUV4MPEG2 W4 H2 C444\nFRAME\n", MarkedFrame(g444, 0)),
      InputKind::kY4m, std::nullopt);
  ASSERT_TRUE(reference != nullptr && other != nullptr);
  reference->KeepChroma();
  absl::Status refused = KeepChromaLike(*reference, "reference", *other, "distorted[2]");
  EXPECT_EQ(refused.code(), absl::StatusCode::kInvalidArgument);
  const std::string message(refused.message());
  EXPECT_THAT(message, ::testing::StartsWith("distorted[2]: dis444.y4m is 444"));
  EXPECT_THAT(message, ::testing::HasSubstr("reference (ref.yuv) is 420"));
  EXPECT_THAT(message, ::testing::HasSubstr("enable_chroma=false"));
  EXPECT_FALSE(other->keeps_chroma());

  std::unique_ptr<VideoInput> same = OpenRaw(
      "dis420.y4m", absl::StrCat("YUV4MPEG2 W4 H2 C420jpeg\nFRAME\n", MarkedFrame(g420, 1)),
      InputKind::kY4m, std::nullopt);
  ASSERT_NE(same, nullptr);
  ASSERT_TRUE(KeepChromaLike(*reference, "reference", *same, "distorted[0]").ok());
  EXPECT_TRUE(same->keeps_chroma());
  std::string planes;
  ASSERT_TRUE(*same->ReadPlanes(&planes));
  EXPECT_EQ(planes, MarkedFrame(g420, 1));
}

// Every picture the decoder gives, each plane tightly packed: what a decoded input keeping chroma
// must hand over, with libswscale's conversion to `target` where one is given.
std::vector<std::string> DecodedPictures(const std::string& path,
                                         const std::optional<Geometry>& target) {
  std::vector<std::string> pictures;
  auto decoder = VideoDecoder::OpenFd(::open(path.c_str(), O_RDONLY), path, DecodeLimits());
  EXPECT_TRUE(decoder.ok()) << decoder.status();
  if (!decoder.ok()) return pictures;
  std::optional<PictureScaler> scaler;
  if (target.has_value()) {
    scaler.emplace(target->width, target->height, PixelFormatForGeometry(*target),
                   ScalerChoice());
  }
  while (true) {
    absl::StatusOr<const AVFrame*> frame = (*decoder)->Next();
    EXPECT_TRUE(frame.ok()) << frame.status();
    if (!frame.ok() || *frame == nullptr) break;
    if (scaler.has_value()) frame = scaler->Convert(**frame);
    EXPECT_TRUE(frame.ok()) << frame.status();
    if (!frame.ok()) break;
    pictures.push_back(PackedPicture(**frame));
  }
  return pictures;
}

TEST(VideoInputTest, DecodedInputKeepingChromaGivesEveryPlaneAsDecoded) {
  for (const char* file : {"h264_426x240.mp4", "hevc10_960x540.mkv"}) {
    const std::string path = LadderFile(file);
    const std::vector<std::string> expected = DecodedPictures(path, std::nullopt);
    ASSERT_EQ(expected.size(), 24u) << file;
    auto input = DecodedInput::Open(::open(path.c_str(), O_RDONLY), file, {});
    ASSERT_TRUE(input.ok()) << input.status();
    (*input)->KeepChroma();
    EXPECT_TRUE((*input)->keeps_chroma());
    const size_t luma_bytes = LumaBytes((*input)->geometry());
    Picture picture;
    for (const std::string& planes : expected) {
      ASSERT_TRUE(*(*input)->Read(&picture)) << file;
      ASSERT_TRUE(picture.has_chroma()) << file;
      EXPECT_EQ(planes.size(), FrameBytes((*input)->geometry())) << file;
      ASSERT_TRUE(AsString(picture.host_luma()) == planes.substr(0, luma_bytes)) << file;
      ASSERT_TRUE(AsString(picture.host_chroma()) == planes.substr(luma_bytes)) << file;
    }
    EXPECT_FALSE(*(*input)->Read(&picture)) << file;
  }
}

// A 4:2:0 rendition paired with a 4:4:4 reference is converted to 4:4:4 with its upscale; the
// chroma kept is the converted one.
TEST(VideoInputTest, ScaledDecodedInputKeepsTheChromaAtTheTargetsLayout) {
  const std::string path = LadderFile("h264_426x240.mp4");
  const Geometry target{640, 360, 8, ChromaFormat::k444};
  const std::vector<std::string> expected = DecodedPictures(path, target);
  ASSERT_EQ(expected.size(), 24u);
  auto input = DecodedInput::Open(::open(path.c_str(), O_RDONLY), "h264_426x240.mp4", {});
  ASSERT_TRUE(input.ok()) << input.status();
  (*input)->ScaleTo(target, ScalerChoice());
  (*input)->KeepChroma();
  std::string planes;
  for (size_t i = 0; i < expected.size(); ++i) {
    ASSERT_TRUE(*(*input)->ReadPlanes(&planes)) << i;
    ASSERT_EQ(planes.size(), FrameBytes(target)) << i;
    ASSERT_TRUE(planes == expected[i]) << "frame " << i;
  }
  EXPECT_FALSE(*(*input)->ReadPlanes(&planes));
}

// Once chroma is kept, the scorer's upscale plans its chroma too: each picture comes at its
// decoded size with luma and chroma, and the plan's host model (the GPU kernels' arithmetic) gives
// libswscale's whole picture byte for byte, chroma planes included.
TEST(VideoInputTest, UpscaleOnScorerScalesTheKeptChromaAsLibswscaleDoes) {
  const std::string path = LadderFile("h264_426x240.mp4");
  const Geometry target{1920, 1080, 8, ChromaFormat::k420};
  const std::vector<std::string> expected = DecodedPictures(path, target);
  ASSERT_EQ(expected.size(), 24u);
  auto input = DecodedInput::Open(::open(path.c_str(), O_RDONLY), "h264_426x240.mp4", {});
  ASSERT_TRUE(input.ok()) << input.status();
  (*input)->ScaleTo(target, ScalerChoice());
  (*input)->KeepChroma();
  const CheckedPlan checked = (*input)->UpscaleOnScorer();
  ASSERT_NE(checked.plan, nullptr) << checked.why;
  ASSERT_NE(checked.plan->chroma, nullptr);
  EXPECT_EQ(checked.plan->chroma->src_width, 213);
  EXPECT_EQ(checked.plan->chroma->dst_height, 540);
  Picture picture;
  for (size_t i = 0; i < expected.size(); ++i) {
    ASSERT_TRUE(*(*input)->Read(&picture)) << i;
    ASSERT_TRUE(picture.needs_upscale()) << i;
    ASSERT_TRUE(picture.has_chroma()) << i;
    EXPECT_EQ(picture.geometry().width, 426);
    EXPECT_EQ(picture.host_chroma().size(),
              FrameBytes(picture.geometry()) - LumaBytes(picture.geometry()));
    ASSERT_TRUE(picture.UpscaleOnHost().ok()) << i;
    std::string planes = picture.TakeBuffer();
    ASSERT_EQ(planes.size(), FrameBytes(target)) << i;
    ASSERT_TRUE(planes.substr(LumaBytes(target)) == expected[i].substr(LumaBytes(target)))
        << "chroma of frame " << i;
    ASSERT_TRUE(planes == expected[i]) << "frame " << i;
  }
}

// A rendition whose chroma libswscale converts to another layout keeps its upscale there.
TEST(VideoInputTest, UpscaleOnScorerRefusesChromaOfAnotherLayout) {
  const std::string path = LadderFile("h264_426x240.mp4");
  auto input = DecodedInput::Open(::open(path.c_str(), O_RDONLY), "h264_426x240.mp4", {});
  ASSERT_TRUE(input.ok()) << input.status();
  (*input)->ScaleTo(Geometry{1920, 1080, 8, ChromaFormat::k444}, ScalerChoice());
  (*input)->KeepChroma();
  const CheckedPlan checked = (*input)->UpscaleOnScorer();
  EXPECT_EQ(checked.plan, nullptr);
  EXPECT_EQ(UpscaleRefusalLabel(checked.refusal), "format");
  EXPECT_THAT(checked.why.message(), ::testing::HasSubstr("another layout"));
  Picture picture;
  ASSERT_TRUE(*(*input)->Read(&picture));
  EXPECT_FALSE(picture.needs_upscale());
  EXPECT_EQ(picture.host_chroma().size(), 2u * 1920 * 1080);
}

}  // namespace
}  // namespace ssimd
