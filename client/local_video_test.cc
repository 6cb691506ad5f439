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

TEST(LocalVideoTest, PairsOpenedWithChromaReadItFromRawAndY4mFiles) {
  const Geometry g{6, 4, 8, ChromaFormat::k420};
  const Frame ref = MakeFrame(g, 1), dis = MakeFrame(g, 9);
  const std::string ref_path = TempPath("ref.yuv"), dis_path = TempPath("dis.y4m");
  WriteFile(ref_path, ref.Whole());
  WriteFile(dis_path, "YUV4MPEG2 W6 H4 C420jpeg\nFRAME\n" + dis.Whole());
  auto pair = OpenLocalPair(ref_path, dis_path, g, ScalerChoice(), /*chroma=*/true);
  ASSERT_TRUE(pair.ok()) << pair.status();
  ASSERT_TRUE(pair->with_chroma());
  std::string planes;
  ASSERT_TRUE(pair->reference->ReadPlanes(&planes).value());
  EXPECT_EQ(planes, ref.Whole());
  ASSERT_TRUE(pair->distorted->ReadPlanes(&planes).value());
  EXPECT_EQ(planes, dis.Whole());

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

// Pictures decoded here carry their chroma too, a rendition's converted to the reference's layout
// at its size, as the server's inputs do.
TEST(LocalVideoTest, EncodedFilesGiveTheirChromaToo) {
  auto encoded = OpenLocalPair(LadderFile("h264_1920x1080.mp4"), LadderFile("vp9_960x540.webm"),
                               std::nullopt, ScalerChoice(), /*chroma=*/true);
  ASSERT_TRUE(encoded.ok()) << encoded.status();
  ASSERT_TRUE(encoded->with_chroma());
  const Geometry g{1920, 1080, 8, ChromaFormat::k420};
  EXPECT_EQ(CountFrames(*encoded->reference, FrameBytes(g)), 24);
  EXPECT_EQ(CountFrames(*encoded->distorted, FrameBytes(g)), 24);

  const std::string raw = TempPath("source.yuv");
  WriteFile(raw, MakeFrame(g, 1).Whole());
  auto rendition = OpenLocalPair(raw, LadderFile("vp9_960x540.webm"), g, ScalerChoice(),
                                 /*chroma=*/true);
  ASSERT_TRUE(rendition.ok()) << rendition.status();
  std::string planes;
  ASSERT_TRUE(rendition->distorted->ReadPlanes(&planes).value());
  EXPECT_EQ(planes.size(), FrameBytes(g));
}

}  // namespace
}  // namespace ssimd
