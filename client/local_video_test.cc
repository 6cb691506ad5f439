#include "client/local_video.h"

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "engine/io/frame_reader.h"
#include "engine/media/test_media.h"
#include "gtest/gtest.h"

namespace ssimd {
namespace {

int CountFrames(VideoInput& input, size_t expected_luma_bytes) {
  std::string luma;
  int frames = 0;
  while (true) {
    absl::StatusOr<bool> got = input.ReadPlanes(&luma);
    EXPECT_TRUE(got.ok()) << got.status();
    if (!got.ok() || !*got) return frames;
    EXPECT_EQ(luma.size(), expected_luma_bytes);
    ++frames;
  }
}

TEST(LocalVideoTest, ASmallerRenditionIsScaledToTheReference) {
  auto pair = OpenLocalPair(LadderFile("h264_1920x1080.mp4"), LadderFile("vp9_960x540.webm"),
                            std::nullopt, ScalerChoice());
  ASSERT_TRUE(pair.ok()) << pair.status();
  EXPECT_EQ(pair->distorted->geometry().width, 1920);
  EXPECT_EQ(pair->distorted->geometry().height, 1080);
  EXPECT_EQ(CountFrames(*pair->distorted, 1920u * 1080), 24);
  EXPECT_EQ(CountFrames(*pair->reference, 1920u * 1080), 24);
}

TEST(LocalVideoTest, DifferentBitDepthsAreRefusedNamingTheFlags) {
  auto pair = OpenLocalPair(LadderFile("h264_1920x1080.mp4"), LadderFile("hevc10_960x540.mkv"),
                            std::nullopt, ScalerChoice());
  ASSERT_FALSE(pair.ok());
  EXPECT_EQ(pair.status().code(), absl::StatusCode::kInvalidArgument) << pair.status();
  EXPECT_NE(pair.status().message().find("-d"), absl::string_view::npos) << pair.status();
}

TEST(LocalVideoTest, AMissingFileIsNotFoundAndNamed) {
  auto input = OpenLocalVideo("no/such/file.mp4", std::nullopt);
  ASSERT_FALSE(input.ok());
  EXPECT_EQ(input.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(input.status().message().find("no/such/file.mp4"), absl::string_view::npos);
}

TEST(LocalVideoTest, ARawFileNeedsItsGeometry) {
  const std::string path = absl::StrCat(std::getenv("TEST_TMPDIR"), "/clip.yuv");
  std::ofstream(path, std::ios::binary) << std::string(6, 'x');
  auto without = OpenLocalVideo(path, std::nullopt);
  EXPECT_FALSE(without.ok());
  auto with = OpenLocalVideo(path, Geometry{2, 2, 8, ChromaFormat::k420});
  ASSERT_TRUE(with.ok()) << with.status();
  EXPECT_EQ(CountFrames(**with, 4), 1);
}

std::string TempPath(const std::string& name) {
  return absl::StrCat(std::getenv("TEST_TMPDIR"), "/", name);
}

void WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

// `count` bytes that differ from those of other calls with another `seed`.
std::string Bytes(size_t count, int seed) {
  std::string out;
  for (size_t i = 0; i < count; ++i) out.push_back(static_cast<char>(i * 7 + seed * 31));
  return out;
}

// A planar frame as the file stores it: luma, then the two chroma planes.
struct Frame {
  std::string luma;
  std::string chroma;
  std::string Whole() const { return luma + chroma; }
};

Frame MakeFrame(const Geometry& g, int seed) {
  return {Bytes(LumaBytes(g), seed), Bytes(FrameBytes(g) - LumaBytes(g), seed + 1)};
}

void ExpectFrames(WholeFrameInput& input, const std::vector<Frame>& frames) {
  std::string luma, chroma;
  for (size_t i = 0; i < frames.size(); ++i) {
    absl::StatusOr<bool> got = input.ReadFrame(&luma, &chroma);
    ASSERT_TRUE(got.ok()) << got.status();
    ASSERT_TRUE(*got) << "frame " << i;
    EXPECT_EQ(luma, frames[i].luma) << "frame " << i;
    EXPECT_EQ(chroma, frames[i].chroma) << "frame " << i;
  }
  absl::StatusOr<bool> end = input.ReadFrame(&luma, &chroma);
  ASSERT_TRUE(end.ok()) << end.status();
  EXPECT_FALSE(*end);
  EXPECT_EQ(input.frames_read(), frames.size());
}

TEST(WholeFrameInputTest, RawFramesComeWithTheirChromaAtTheStoredSize) {
  // Odd sides: chroma planes of ceil(w/2) x ceil(h/2), as ffmpeg stores them.
  for (const Geometry& g : {Geometry{5, 3, 8, ChromaFormat::k420},
                            Geometry{5, 3, 10, ChromaFormat::k422},
                            Geometry{4, 2, 16, ChromaFormat::k444},
                            Geometry{6, 2, 12, ChromaFormat::k400}}) {
    const std::vector<Frame> frames = {MakeFrame(g, 1), MakeFrame(g, 2), MakeFrame(g, 3)};
    const PlaneSize chroma = StoredChromaSize(g);
    ASSERT_EQ(frames[0].chroma.size(),
              2u * chroma.width * chroma.height * BytesPerSample(g.bit_depth));
    const std::string path = TempPath("whole.yuv");
    WriteFile(path, frames[0].Whole() + frames[1].Whole() + frames[2].Whole());
    auto input = WholeFrameInput::Open(path, g);
    ASSERT_TRUE(input.ok()) << input.status();
    EXPECT_EQ((*input)->EstimatedFrames(), 3u);
    ExpectFrames(**input, frames);
  }
}

TEST(WholeFrameInputTest, Y4mFramesComeWithTheirChromaWhateverTheFrameLines) {
  const Geometry g{5, 3, 10, ChromaFormat::k420};
  const std::vector<Frame> frames = {MakeFrame(g, 4), MakeFrame(g, 5)};
  const std::string path = TempPath("whole.y4m");
  WriteFile(path, "YUV4MPEG2 W5 H3 F30000:1001 Ip A1:1 C420p10 XYSCSS=420P10\nFRAME\n" +
                      frames[0].Whole() + "FRAME Ip\n" + frames[1].Whole());
  auto input = WholeFrameInput::Open(path, std::nullopt);
  ASSERT_TRUE(input.ok()) << input.status();
  EXPECT_EQ((*input)->geometry().bit_depth, 10);
  EXPECT_EQ((*input)->geometry().chroma, ChromaFormat::k420);
  EXPECT_EQ((*input)->frame_rate().num, 30000);
  EXPECT_EQ((*input)->frame_rate().den, 1001);
  ExpectFrames(**input, frames);
}

TEST(WholeFrameInputTest, LumaIsWhatTheEnginesReaderReads) {
  const Geometry g{7, 5, 8, ChromaFormat::k422};
  const std::string path = TempPath("same.y4m");
  WriteFile(path, "YUV4MPEG2 W7 H5 F25:1 C422\nFRAME\n" + MakeFrame(g, 6).Whole() +
                      "FRAME\n" + MakeFrame(g, 7).Whole());
  auto engine = FrameReader::Open(path, std::nullopt);
  ASSERT_TRUE(engine.ok()) << engine.status();
  auto whole = WholeFrameInput::Open(path, std::nullopt);
  ASSERT_TRUE(whole.ok()) << whole.status();
  EXPECT_EQ((*whole)->EstimatedFrames(), (*engine)->EstimatedFrames());
  for (int i = 0; i < 2; ++i) {
    std::string expected, luma;
    ASSERT_TRUE((*engine)->ReadPlanes(&expected).value());
    ASSERT_TRUE((*whole)->ReadPlanes(&luma).value());  // through Read, chroma read past
    EXPECT_EQ(luma, expected);
  }
  std::string end;
  EXPECT_FALSE((*whole)->ReadPlanes(&end).value());
}

TEST(WholeFrameInputTest, SkippingMovesByWholeFrames) {
  const Geometry g{4, 4, 8, ChromaFormat::k420};
  const std::vector<Frame> frames = {MakeFrame(g, 1), MakeFrame(g, 2), MakeFrame(g, 3)};
  const std::string path = TempPath("skip.yuv");
  WriteFile(path, frames[0].Whole() + frames[1].Whole() + frames[2].Whole());
  auto input = WholeFrameInput::Open(path, g);
  ASSERT_TRUE(input.ok()) << input.status();
  ASSERT_TRUE((*input)->Skip(2).ok());
  std::string luma, chroma;
  ASSERT_TRUE((*input)->ReadFrame(&luma, &chroma).value());
  EXPECT_EQ(luma, frames[2].luma);
  EXPECT_EQ(chroma, frames[2].chroma);
  EXPECT_FALSE((*input)->Skip(1).ok());
}

TEST(WholeFrameInputTest, DamagedFilesAreRefusedNamingTheFileAndFrame) {
  const Geometry g{4, 4, 8, ChromaFormat::k420};
  const std::string raw = TempPath("cut.yuv");
  // The second frame ends inside its chroma.
  WriteFile(raw, MakeFrame(g, 1).Whole() + MakeFrame(g, 2).Whole().substr(0, 20));
  auto input = WholeFrameInput::Open(raw, g);
  ASSERT_TRUE(input.ok()) << input.status();
  std::string luma, chroma;
  ASSERT_TRUE((*input)->ReadFrame(&luma, &chroma).value());
  absl::StatusOr<bool> cut = (*input)->ReadFrame(&luma, &chroma);
  ASSERT_FALSE(cut.ok());
  EXPECT_EQ(cut.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(cut.status().message().find("cut.yuv: frame 1 is truncated"), absl::string_view::npos)
      << cut.status();

  const std::string y4m = TempPath("bad.y4m");
  WriteFile(y4m, "YUV4MPEG2 W4 H4 C420\nFRAME\n" + MakeFrame(g, 1).Whole() + "FRAMX\n");
  auto bad = WholeFrameInput::Open(y4m, std::nullopt);
  ASSERT_TRUE(bad.ok()) << bad.status();
  ASSERT_TRUE((*bad)->ReadFrame(&luma, &chroma).value());
  absl::StatusOr<bool> not_a_frame = (*bad)->ReadFrame(&luma, &chroma);
  ASSERT_FALSE(not_a_frame.ok());
  EXPECT_NE(not_a_frame.status().message().find("frame 1 does not start with a y4m FRAME line"),
            absl::string_view::npos)
      << not_a_frame.status();
}

TEST(WholeFrameInputTest, HeadersAreCheckedAsTheEnginesReaderChecksThem) {
  const std::string empty = TempPath("empty.y4m");
  WriteFile(empty, "");
  EXPECT_FALSE(WholeFrameInput::Open(empty, std::nullopt).ok());
  const std::string bad_tag = TempPath("tag.y4m");
  WriteFile(bad_tag, "YUV4MPEG2 W4 H4 C411\n");
  auto tag = WholeFrameInput::Open(bad_tag, std::nullopt);
  ASSERT_FALSE(tag.ok());
  EXPECT_NE(tag.status().message().find("tag.y4m"), absl::string_view::npos) << tag.status();
  const std::string other = TempPath("other.y4m");
  WriteFile(other, "YUV4MPEG2 W4 H4 C420\n");
  EXPECT_FALSE(WholeFrameInput::Open(other, Geometry{8, 4, 8, ChromaFormat::k420}).ok());
  const std::string raw = TempPath("needs.yuv");
  WriteFile(raw, std::string(24, 'x'));
  EXPECT_FALSE(WholeFrameInput::Open(raw, std::nullopt).ok());
  EXPECT_EQ(WholeFrameInput::Open("no/such/file.yuv", Geometry{4, 4, 8, ChromaFormat::k420})
                .status()
                .code(),
            absl::StatusCode::kNotFound);
}

TEST(LocalVideoTest, PairsOpenedWithChromaReadItFromRawAndY4mFiles) {
  const Geometry g{6, 4, 8, ChromaFormat::k420};
  const Frame ref = MakeFrame(g, 1), dis = MakeFrame(g, 9);
  const std::string ref_path = TempPath("ref.yuv"), dis_path = TempPath("dis.y4m");
  WriteFile(ref_path, ref.Whole());
  WriteFile(dis_path, "YUV4MPEG2 W6 H4 C420jpeg\nFRAME\n" + dis.Whole());
  auto pair = OpenLocalPair(ref_path, dis_path, g, ScalerChoice(), /*chroma=*/true);
  ASSERT_TRUE(pair.ok()) << pair.status();
  ASSERT_TRUE(pair->with_chroma());
  EXPECT_EQ(pair->reference_frames, pair->reference.get());
  EXPECT_EQ(pair->distorted_frames, pair->distorted.get());
  std::string luma, chroma;
  ASSERT_TRUE(pair->distorted_frames->ReadFrame(&luma, &chroma).value());
  EXPECT_EQ(luma, dis.luma);
  EXPECT_EQ(chroma, dis.chroma);

  auto luma_only = OpenLocalPair(ref_path, dis_path, g, ScalerChoice(), /*chroma=*/false);
  ASSERT_TRUE(luma_only.ok()) << luma_only.status();
  EXPECT_FALSE(luma_only->with_chroma());
}

TEST(LocalVideoTest, GreyPicturesHaveNoChromaToSend) {
  const Geometry g{6, 4, 8, ChromaFormat::k400};
  const std::string path = TempPath("grey.yuv");
  WriteFile(path, MakeFrame(g, 1).Whole());
  auto pair = OpenLocalPair(path, path, g, ScalerChoice(), /*chroma=*/true);
  ASSERT_TRUE(pair.ok()) << pair.status();
  EXPECT_FALSE(pair->with_chroma());
  EXPECT_EQ(CountFrames(*pair->distorted, 24), 1);
}

TEST(LocalVideoTest, ChromaPlanesOfDifferentLayoutsAreRefused) {
  const Geometry g{6, 4, 8, ChromaFormat::k420};
  const std::string ref_path = TempPath("ref420.yuv"), dis_path = TempPath("dis444.y4m");
  WriteFile(ref_path, MakeFrame(g, 1).Whole());
  WriteFile(dis_path, "YUV4MPEG2 W6 H4 C444\nFRAME\n" +
                          MakeFrame(Geometry{6, 4, 8, ChromaFormat::k444}, 2).Whole());
  auto pair = OpenLocalPair(ref_path, dis_path, g, ScalerChoice(), /*chroma=*/true);
  ASSERT_FALSE(pair.ok());
  EXPECT_EQ(pair.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(pair.status().message().find("enable_chroma=false"), absl::string_view::npos)
      << pair.status();
  // Without chroma the luma planes alone are compared, as before.
  EXPECT_TRUE(OpenLocalPair(ref_path, dis_path, g, ScalerChoice(), /*chroma=*/false).ok());
}

TEST(LocalVideoTest, EncodedFilesWithChromaAreRefusedNamingTheFlagToUse) {
  // Pictures decoded here give luma only: scoring them without their chroma would be wrong.
  auto encoded = OpenLocalPair(LadderFile("h264_1920x1080.mp4"), LadderFile("vp9_960x540.webm"),
                               std::nullopt, ScalerChoice(), /*chroma=*/true);
  ASSERT_FALSE(encoded.ok());
  EXPECT_EQ(encoded.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(encoded.status().message().find("-r "), absl::string_view::npos) << encoded.status();
  EXPECT_NE(encoded.status().message().find("--feature psnr=enable_chroma=false"),
            absl::string_view::npos)
      << encoded.status();

  const Geometry g{1920, 1080, 8, ChromaFormat::k420};
  const std::string raw = TempPath("source.yuv");
  WriteFile(raw, MakeFrame(g, 1).Whole());
  auto rendition = OpenLocalPair(raw, LadderFile("vp9_960x540.webm"), g, ScalerChoice(),
                                 /*chroma=*/true);
  ASSERT_FALSE(rendition.ok());
  EXPECT_NE(rendition.status().message().find("-d "), absl::string_view::npos)
      << rendition.status();
  EXPECT_NE(rendition.status().message().find("--feature psnr=enable_chroma=false"),
            absl::string_view::npos)
      << rendition.status();
}

}  // namespace
}  // namespace ssimd
