#include "engine/media/video_decoder.h"

#include <fcntl.h>

#include <cstring>
#include <string>

#include "absl/strings/str_cat.h"
#include "engine/media/frame_planes.h"
#include "engine/media/pixel_formats.h"
#include "engine/media/test_media.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace ssimd {
namespace {

using ::testing::HasSubstr;

absl::StatusOr<std::unique_ptr<VideoDecoder>> OpenLadderFile(const std::string& name,
                                                             const DecodeLimits& limits = {}) {
  const std::string path = LadderFile(name);
  return VideoDecoder::OpenFd(::open(path.c_str(), O_RDONLY), name, limits);
}

// Every picture's luma, concatenated, and the status that ended decoding.
struct Decoded {
  std::string luma;
  int frames = 0;
  absl::Status status;
};

Decoded DecodeAll(VideoDecoder& decoder) {
  Decoded out;
  std::string luma;
  while (true) {
    absl::StatusOr<const AVFrame*> frame = decoder.Next();
    if (!frame.ok()) {
      out.status = frame.status();
      return out;
    }
    if (*frame == nullptr) return out;
    CopyLuma(**frame, &luma);
    out.luma += luma;
    ++out.frames;
  }
}

TEST(VideoDecoderTest, ReadsGeometryRateAndCodecFromTheFile) {
  auto decoder = OpenLadderFile("h264_426x240.mp4");
  ASSERT_TRUE(decoder.ok()) << decoder.status();
  const VideoStreamInfo& info = (*decoder)->info();
  EXPECT_EQ(info.width, 426);
  EXPECT_EQ(info.height, 240);
  EXPECT_EQ(info.pixel_format, AV_PIX_FMT_YUV420P);
  EXPECT_EQ(FrameRateText(info.frame_rate), "24/1");
  EXPECT_EQ(info.codec, "h264");
  Decoded all = DecodeAll(**decoder);
  EXPECT_TRUE(all.status.ok()) << all.status;
  EXPECT_EQ(all.frames, 24);
  EXPECT_EQ(all.luma.size(), 24u * 426 * 240);
}

TEST(VideoDecoderTest, TenBitHevc) {
  auto decoder = OpenLadderFile("hevc10_960x540.mkv");
  ASSERT_TRUE(decoder.ok()) << decoder.status();
  auto geometry = GeometryForPixelFormat((*decoder)->info().pixel_format, 960, 540);
  ASSERT_TRUE(geometry.ok()) << geometry.status();
  EXPECT_EQ(geometry->bit_depth, 10);
  EXPECT_EQ(DecodeAll(**decoder).frames, 24);
}

TEST(VideoDecoderTest, LumaEqualsTheFfmpegCommandsOutput) {
  if (!HaveFfmpegCommand()) GTEST_SKIP() << "the ffmpeg command is not installed";
  for (const char* name : {"h264_640x360.mp4", "vp9_960x540.webm", "hevc_1280x720.mkv"}) {
    auto decoder = OpenLadderFile(name);
    ASSERT_TRUE(decoder.ok()) << decoder.status();
    const int width = (*decoder)->info().width;
    const int height = (*decoder)->info().height;
    Decoded all = DecodeAll(**decoder);
    ASSERT_TRUE(all.status.ok()) << all.status;
    // The decoder's own format (4:2:0 here): each picture is luma, then a quarter each of chroma.
    auto expected = RunFfmpegRaw({"-i", LadderFile(name)});
    ASSERT_TRUE(expected.ok()) << expected.status();
    const size_t luma = static_cast<size_t>(width) * height;
    const size_t picture = luma + 2 * static_cast<size_t>((width + 1) / 2) * ((height + 1) / 2);
    ASSERT_EQ(expected->size(), picture * all.frames) << name;
    for (int i = 0; i < all.frames; ++i) {
      EXPECT_TRUE(all.luma.compare(luma * i, luma, *expected, picture * i, luma) == 0)
          << name << " picture " << i;
    }
  }
}

TEST(VideoDecoderTest, MemoryInputDecodesTheSameAsAFile) {
  auto bytes = ReadWholeFile(LadderFile("vp9_960x540.webm"));
  ASSERT_TRUE(bytes.ok());
  auto from_memory = VideoDecoder::OpenMemory(*bytes, "vp9_960x540.webm", DecodeLimits());
  auto from_file = OpenLadderFile("vp9_960x540.webm");
  ASSERT_TRUE(from_memory.ok()) << from_memory.status();
  ASSERT_TRUE(from_file.ok()) << from_file.status();
  Decoded a = DecodeAll(**from_memory);
  Decoded b = DecodeAll(**from_file);
  EXPECT_EQ(a.frames, 24);
  EXPECT_TRUE(a.luma == b.luma);
}

TEST(VideoDecoderTest, RefusesBytesThatAreNoMediaFile) {
  const std::string bytes(4096, 'x');
  auto decoder = VideoDecoder::OpenMemory(bytes, "noise.mp4", DecodeLimits());
  EXPECT_EQ(decoder.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(decoder.status().message(), HasSubstr("noise.mp4"));
}

// A valid WAV file: 0.1 s of 8 kHz 8-bit mono silence.
std::string SilentWav() {
  const uint32_t samples = 800;
  std::string wav = "RIFF";
  auto le32 = [&wav](uint32_t v) {
    for (int i = 0; i < 4; ++i) wav.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  };
  auto le16 = [&wav](uint16_t v) {
    wav.push_back(static_cast<char>(v & 0xff));
    wav.push_back(static_cast<char>(v >> 8));
  };
  le32(36 + samples);
  wav += "WAVEfmt ";
  le32(16);
  le16(1);  // PCM
  le16(1);  // mono
  le32(8000);
  le32(8000);
  le16(1);
  le16(8);
  wav += "data";
  le32(samples);
  wav.append(samples, static_cast<char>(0x80));
  return wav;
}

TEST(VideoDecoderTest, RefusesAudioOnlyFiles) {
  const std::string wav = SilentWav();
  auto decoder = VideoDecoder::OpenMemory(wav, "talk.wav", DecodeLimits());
  EXPECT_EQ(decoder.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(decoder.status().message(), HasSubstr("talk.wav: the file has no video stream"));
}

TEST(VideoDecoderTest, RefusesPicturesOverTheLimits) {
  DecodeLimits small;
  small.max_dimension = 400;
  auto decoder = OpenLadderFile("h264_426x240.mp4", small);
  EXPECT_EQ(decoder.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(decoder.status().message(),
              HasSubstr("426x240 = 102240 pixels a picture, over this server's limit of 400 "
                        "pixels a side"));
  EXPECT_EQ(DecodeErrorLabelOf(decoder.status()), "over_limits");
  DecodeLimits few_pixels;
  few_pixels.max_pixels = 426 * 240 - 1;
  few_pixels.max_pixels_source = "--max_picture_pixels";
  auto over = OpenLadderFile("h264_426x240.mp4", few_pixels);
  EXPECT_EQ(over.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(over.status().message(),
              HasSubstr("over this server's limit of 102239 pixels a picture "
                        "(--max_picture_pixels)"));
}

TEST(VideoDecoderTest, CorruptBitstreamNamesTheFileAndTheFrame) {
  auto bytes = ReadWholeFile(LadderFile("h264_640x360.mp4"));
  ASSERT_TRUE(bytes.ok());
  std::string damaged = *bytes;
  // Overwrite a stretch late in the file: the container stays readable, the slices do not.
  const size_t start = damaged.size() * 7 / 10;
  std::memset(damaged.data() + start, 0xff, 3000);
  auto decoder = VideoDecoder::OpenMemory(damaged, "damaged.mp4", DecodeLimits());
  ASSERT_TRUE(decoder.ok()) << decoder.status();
  Decoded all = DecodeAll(**decoder);
  EXPECT_EQ(all.status.code(), absl::StatusCode::kInvalidArgument) << all.frames;
  EXPECT_THAT(all.status.message(), HasSubstr(absl::StrCat("damaged.mp4: frame ", all.frames)));
  EXPECT_GT(all.frames, 0);
  EXPECT_LT(all.frames, 24);
}

TEST(VideoDecoderTest, TruncatedFilesEndInAnErrorOrEarly) {
  auto bytes = ReadWholeFile(LadderFile("h264_640x360.mp4"));
  ASSERT_TRUE(bytes.ok());
  // mp4 keeps its index at the end: without it nothing is readable.
  const std::string head = bytes->substr(0, bytes->size() / 2);
  auto decoder = VideoDecoder::OpenMemory(head, "cut.mp4", DecodeLimits());
  EXPECT_EQ(decoder.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(decoder.status().message(), HasSubstr("cut.mp4"));

  auto mkv = ReadWholeFile(LadderFile("hevc_1280x720.mkv"));
  ASSERT_TRUE(mkv.ok());
  // Matroska streams: the frames before the cut come out (ffmpeg's command gives the same).
  const std::string mkv_head = mkv->substr(0, mkv->size() * 9 / 10);
  auto cut = VideoDecoder::OpenMemory(mkv_head, "cut.mkv", DecodeLimits());
  ASSERT_TRUE(cut.ok()) << cut.status();
  Decoded all = DecodeAll(**cut);
  EXPECT_GT(all.frames, 0) << all.status;
  EXPECT_LT(all.frames, 24) << all.status;
}

TEST(VideoDecoderTest, FrameRatesCompareAsRationals) {
  EXPECT_TRUE(SameFrameRate({30000, 1001}, {60000, 2002}));
  EXPECT_FALSE(SameFrameRate({24, 1}, {25, 1}));
  EXPECT_FALSE(SameFrameRate({0, 1}, {0, 1}));
  EXPECT_EQ(FrameRateText({}), "unknown");
}

}  // namespace
}  // namespace ssimd
