#include "engine/io/frame_reader.h"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "engine/synthetic_picture.h"
#include "gtest/gtest.h"

namespace ssimd {
namespace {

using ::testing::HasSubstr;

std::string TempPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return absl::StrCat(dir != nullptr ? dir : "/tmp", "/", name);
}

void WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out << bytes;
}

// A frame whose luma bytes are `value + i` and chroma bytes 0xee, so a reader that mixes up
// planes shows it.
std::string RawFrame(const Geometry& g, int value) {
  const size_t luma = LumaBytes(g);
  std::string frame(FrameBytes(g), static_cast<char>(0xee));
  for (size_t i = 0; i < luma; ++i) frame[i] = static_cast<char>(value + i);
  return frame;
}

TEST(FrameReaderTest, RawYuvOddSize420SkipsChroma) {
  const Geometry g{5, 3, 8, ChromaFormat::k420};  // chroma 3x2 per plane
  ASSERT_EQ(FrameBytes(g), 15u + 12u);
  const std::string path = TempPath("odd.yuv");
  WriteFile(path, RawFrame(g, 0) + RawFrame(g, 100));
  auto reader = FrameReader::Open(path, g);
  ASSERT_TRUE(reader.ok()) << reader.status();
  std::string luma;
  ASSERT_TRUE(*(*reader)->ReadPlanes(&luma));
  EXPECT_EQ(luma, RawFrame(g, 0).substr(0, 15));
  ASSERT_TRUE(*(*reader)->ReadPlanes(&luma));
  EXPECT_EQ(luma, RawFrame(g, 100).substr(0, 15));
  EXPECT_EQ((*reader)->EstimatedFrames(), 2u);
  auto end = (*reader)->ReadPlanes(&luma);
  ASSERT_TRUE(end.ok());
  EXPECT_FALSE(*end);
  EXPECT_EQ((*reader)->frames_read(), 2u);
}

TEST(FrameReaderTest, RawYuvHighBitDepth422) {
  const Geometry g{4, 2, 10, ChromaFormat::k422};
  ASSERT_EQ(LumaBytes(g), 16u);
  const std::string path = TempPath("hbd.yuv");
  WriteFile(path, RawFrame(g, 7));
  auto reader = FrameReader::Open(path, g);
  ASSERT_TRUE(reader.ok()) << reader.status();
  std::string luma;
  ASSERT_TRUE(*(*reader)->ReadPlanes(&luma));
  EXPECT_EQ(luma, RawFrame(g, 7).substr(0, 16));
}

TEST(FrameReaderTest, RawYuvTruncatedLastFrame) {
  const Geometry g{4, 4, 8, ChromaFormat::k420};
  const std::string path = TempPath("short.yuv");
  WriteFile(path, RawFrame(g, 0) + RawFrame(g, 1).substr(0, 20));
  auto reader = FrameReader::Open(path, g);
  ASSERT_TRUE(reader.ok());
  std::string luma;
  ASSERT_TRUE(*(*reader)->ReadPlanes(&luma));
  auto second = (*reader)->ReadPlanes(&luma);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(second.status().message()), HasSubstr("frame 1 is truncated"));
  EXPECT_THAT(std::string(second.status().message()), HasSubstr("after 20 of its 24 bytes"));
}

TEST(FrameReaderTest, RawYuvNeedsGeometry) {
  const std::string path = TempPath("nogeo.yuv");
  WriteFile(path, "x");
  auto reader = FrameReader::Open(path, std::nullopt);
  EXPECT_EQ(reader.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(FrameReaderTest, Y4mFramesWithParameters) {
  const Geometry g{3, 2, 8, ChromaFormat::k444};
  const std::string path = TempPath("clip.y4m");
  WriteFile(path, absl::StrCat("YUV4MPEG2 W3 H2 F25:1 Ip C444\n", "FRAME\n", RawFrame(g, 1),
                               "FRAME Ixyz\n", RawFrame(g, 50)));
  auto reader = FrameReader::Open(path, std::nullopt);
  ASSERT_TRUE(reader.ok()) << reader.status();
  EXPECT_EQ((*reader)->geometry().chroma, ChromaFormat::k444);
  EXPECT_EQ((*reader)->EstimatedFrames(), 2u);
  std::string luma;
  ASSERT_TRUE(*(*reader)->ReadPlanes(&luma));
  EXPECT_EQ(luma, RawFrame(g, 1).substr(0, 6));
  ASSERT_TRUE(*(*reader)->ReadPlanes(&luma));
  EXPECT_EQ(luma, RawFrame(g, 50).substr(0, 6));
  EXPECT_FALSE(*(*reader)->ReadPlanes(&luma));
}

TEST(FrameReaderTest, Y4mSkip) {
  const Geometry g{2, 2, 8, ChromaFormat::k400};
  const std::string path = TempPath("skip.y4m");
  WriteFile(path, absl::StrCat("YUV4MPEG2 W2 H2 Cmono\n", "FRAME\n", RawFrame(g, 1), "FRAME\n",
                               RawFrame(g, 9)));
  auto reader = FrameReader::Open(path, std::nullopt);
  ASSERT_TRUE(reader.ok()) << reader.status();
  ASSERT_TRUE((*reader)->Skip(1).ok());
  std::string luma;
  ASSERT_TRUE(*(*reader)->ReadPlanes(&luma));
  EXPECT_EQ(luma, RawFrame(g, 9));
  EXPECT_THAT(std::string((*reader)->Skip(5).message()), HasSubstr("has only 2"));
}

// A pipe cannot be seeked past the chroma: it is read and dropped, with the same checks.
TEST(FrameReaderTest, RawYuvFromAPipeReadsPastTheChroma) {
  const Geometry g{4, 4, 8, ChromaFormat::k420};
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const std::string bytes = RawFrame(g, 0) + RawFrame(g, 1) + RawFrame(g, 2).substr(0, 20);
  ASSERT_EQ(::write(fds[1], bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
  ::close(fds[1]);
  auto reader = FrameReader::FromFd(fds[0], "pipe.yuv", FileFormat::kRawYuv, g);
  ASSERT_TRUE(reader.ok()) << reader.status();
  std::string luma;
  for (int i = 0; i < 2; ++i) {
    ASSERT_TRUE(*(*reader)->ReadPlanes(&luma));
    EXPECT_EQ(luma, RawFrame(g, i).substr(0, 16));
  }
  auto third = (*reader)->ReadPlanes(&luma);
  ASSERT_FALSE(third.ok());
  EXPECT_THAT(std::string(third.status().message()), HasSubstr("after 20 of its 24 bytes"));
}

TEST(FrameReaderTest, Y4mTruncatedAndDamaged) {
  const Geometry g{4, 2, 8, ChromaFormat::k420};
  const std::string truncated = TempPath("trunc.y4m");
  WriteFile(truncated, absl::StrCat("YUV4MPEG2 W4 H2\nFRAME\n", RawFrame(g, 0).substr(0, 5)));
  auto reader = FrameReader::Open(truncated, std::nullopt);
  ASSERT_TRUE(reader.ok());
  std::string luma;
  auto got = (*reader)->ReadPlanes(&luma);
  EXPECT_EQ(got.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(got.status().message()), HasSubstr("frame 0 is truncated"));

  const std::string damaged = TempPath("damaged.y4m");
  WriteFile(damaged, absl::StrCat("YUV4MPEG2 W4 H2\nFRAME\n", RawFrame(g, 0), "GARBAGE\n"));
  reader = FrameReader::Open(damaged, std::nullopt);
  ASSERT_TRUE(reader.ok());
  ASSERT_TRUE(*(*reader)->ReadPlanes(&luma));
  got = (*reader)->ReadPlanes(&luma);
  EXPECT_THAT(std::string(got.status().message()), HasSubstr("does not start with a y4m FRAME"));

  const std::string headless = TempPath("headless.y4m");
  WriteFile(headless, "YUV4MPEG2 W4 H2");
  EXPECT_THAT(std::string(FrameReader::Open(headless, std::nullopt).status().message()),
              HasSubstr("ends inside a y4m header line"));
}

TEST(FrameReaderTest, Y4mGeometryMustMatchWhenGiven) {
  const std::string path = TempPath("match.y4m");
  WriteFile(path, "YUV4MPEG2 W4 H2 C420p10\n");
  auto reader = FrameReader::Open(path, Geometry{4, 2, 8, ChromaFormat::k420});
  EXPECT_THAT(std::string(reader.status().message()), HasSubstr("the y4m header says 4x2 10-bit"));
}

// Every frame read by position equals the frame read in order, whatever the order.
void ExpectPositionalEqualsSequential(const std::string& path, const std::optional<Geometry>& g,
                                      int frames) {
  auto in_order = FrameReader::Open(path, g);
  auto by_position = FrameReader::Open(path, g);
  ASSERT_TRUE(in_order.ok() && by_position.ok());
  ASSERT_TRUE((*by_position)->positional());
  std::vector<std::string> expected(frames);
  for (std::string& frame : expected) ASSERT_TRUE(*(*in_order)->ReadPlanes(&frame));
  for (int i = frames - 1; i >= 0; --i) {
    std::string luma;
    absl::StatusOr<bool> got = (*by_position)->ReadPlanesAt(i, &luma);
    ASSERT_TRUE(got.ok() && *got) << i;
    EXPECT_EQ(luma, expected[i]) << i;
  }
  std::string luma;
  EXPECT_FALSE(*(*by_position)->ReadPlanesAt(frames, &luma));
  EXPECT_FALSE(*(*by_position)->ReadPlanesAt(frames + 100, &luma));
}

TEST(FrameReaderTest, PositionalReadsOfRawAndY4m) {
  const Geometry g{5, 3, 8, ChromaFormat::k420};
  const std::string raw = TempPath("positional.yuv");
  WriteFile(raw, RawFrame(g, 0) + RawFrame(g, 40) + RawFrame(g, 80));
  ExpectPositionalEqualsSequential(raw, g, 3);

  const Geometry g10{4, 2, 10, ChromaFormat::k422};
  const std::string y4m = TempPath("positional.y4m");
  WriteFile(y4m, absl::StrCat("YUV4MPEG2 W4 H2 F25:1 C422p10\n", "FRAME\n", RawFrame(g10, 1),
                              "FRAME\n", RawFrame(g10, 2), "FRAME\n", RawFrame(g10, 3)));
  ExpectPositionalEqualsSequential(y4m, std::nullopt, 3);
}

TEST(FrameReaderTest, Y4mWithFrameParametersOrStraySizesIsReadInOrderOnly) {
  const Geometry g{4, 2, 8, ChromaFormat::k420};
  const std::string params = TempPath("params.y4m");
  WriteFile(params, absl::StrCat("YUV4MPEG2 W4 H2\n", "FRAME Ixyz\n", RawFrame(g, 1)));
  auto reader = FrameReader::Open(params, std::nullopt);
  ASSERT_TRUE(reader.ok());
  EXPECT_FALSE((*reader)->positional());
  const std::string stray = TempPath("stray.y4m");
  WriteFile(stray, absl::StrCat("YUV4MPEG2 W4 H2\n", "FRAME\n", RawFrame(g, 1), "x"));
  reader = FrameReader::Open(stray, std::nullopt);
  ASSERT_TRUE(reader.ok());
  EXPECT_FALSE((*reader)->positional());
}

TEST(FrameReaderTest, PositionalReadsReportTruncationAndDamageLikeReadsInOrder) {
  const Geometry g{4, 4, 8, ChromaFormat::k420};
  const std::string raw = TempPath("positional_short.yuv");
  WriteFile(raw, RawFrame(g, 0) + RawFrame(g, 1).substr(0, 20));
  auto reader = FrameReader::Open(raw, g);
  ASSERT_TRUE(reader.ok());
  std::string luma;
  absl::StatusOr<bool> got = (*reader)->ReadPlanesAt(1, &luma);
  ASSERT_FALSE(got.ok());
  EXPECT_THAT(std::string(got.status().message()), HasSubstr("frame 1 is truncated"));
  EXPECT_THAT(std::string(got.status().message()), HasSubstr("after 20 of its 24 bytes"));
  ASSERT_TRUE(*(*reader)->ReadPlanesAt(0, &luma));
  // Word for word what reading in order says (RawYuvTruncatedLastFrame).
  auto in_order = FrameReader::Open(raw, g);
  ASSERT_TRUE(in_order.ok());
  ASSERT_TRUE(*(*in_order)->ReadPlanes(&luma));
  EXPECT_EQ((*in_order)->ReadPlanes(&luma).status(), got.status());

  // Same size as two bare frames, but the second line is something else.
  const Geometry small{4, 2, 8, ChromaFormat::k420};
  const std::string damaged = TempPath("positional_damaged.y4m");
  WriteFile(damaged, absl::StrCat("YUV4MPEG2 W4 H2\n", "FRAME\n", RawFrame(small, 0),
                                  "FRAMX\n", RawFrame(small, 1)));
  reader = FrameReader::Open(damaged, std::nullopt);
  ASSERT_TRUE(reader.ok());
  ASSERT_TRUE((*reader)->positional());
  got = (*reader)->ReadPlanesAt(1, &luma);
  ASSERT_FALSE(got.ok());
  EXPECT_THAT(std::string(got.status().message()),
              HasSubstr("frame 1 does not start with a y4m FRAME line (found \"FRAMX\\n\")"));
}

TEST(FrameReaderTest, KeepChromaReadsRawFramesWholeInOrder) {
  const Geometry g{5, 3, 8, ChromaFormat::k420};  // chroma rounded up to 3x2 per plane
  const std::string path = TempPath("keep_chroma.yuv");
  WriteFile(path, MarkedFrame(g, 0) + MarkedFrame(g, 1) + MarkedFrame(g, 2));
  auto reader = FrameReader::Open(path, g);
  ASSERT_TRUE(reader.ok()) << reader.status();
  EXPECT_FALSE((*reader)->keeps_chroma());
  (*reader)->KeepChroma();
  EXPECT_TRUE((*reader)->keeps_chroma());
  std::string planes;
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(*(*reader)->ReadPlanes(&planes)) << i;
    EXPECT_EQ(planes, MarkedFrame(g, i)) << i;
  }
  auto end = (*reader)->ReadPlanes(&planes);
  ASSERT_TRUE(end.ok());
  EXPECT_FALSE(*end);
  EXPECT_EQ((*reader)->frames_read(), 3u);
}

TEST(FrameReaderTest, KeepChromaReadsY4mFramesWholeAndSkipsWhole) {
  // 10-bit 4:2:2 with a frame parameter: read in order, past each frame line.
  const Geometry g{4, 2, 10, ChromaFormat::k422};
  const std::string path = TempPath("keep_chroma.y4m");
  WriteFile(path, absl::StrCat("YUV4MPEG2 W4 H2 F25:1 C422p10\n", "FRAME\n", MarkedFrame(g, 0),
                               "FRAME Ixyz\n", MarkedFrame(g, 1), "FRAME\n", MarkedFrame(g, 2)));
  auto reader = FrameReader::Open(path, std::nullopt);
  ASSERT_TRUE(reader.ok()) << reader.status();
  EXPECT_FALSE((*reader)->positional());
  (*reader)->KeepChroma();
  std::string planes;
  ASSERT_TRUE(*(*reader)->ReadPlanes(&planes));
  EXPECT_EQ(planes, MarkedFrame(g, 0));
  ASSERT_TRUE((*reader)->Skip(1).ok());
  ASSERT_TRUE(*(*reader)->ReadPlanes(&planes));
  EXPECT_EQ(planes, MarkedFrame(g, 2));
  EXPECT_FALSE(*(*reader)->ReadPlanes(&planes));
}

// Without a file position to seek, the chroma kept is the chroma read from the stream.
TEST(FrameReaderTest, KeepChromaFromAPipeReportsTruncationLikeLumaOnly) {
  const Geometry g{4, 4, 8, ChromaFormat::k420};
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const std::string bytes =
      MarkedFrame(g, 0) + MarkedFrame(g, 1) + MarkedFrame(g, 2).substr(0, 20);
  ASSERT_EQ(::write(fds[1], bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
  ::close(fds[1]);
  auto reader = FrameReader::FromFd(fds[0], "pipe.yuv", FileFormat::kRawYuv, g);
  ASSERT_TRUE(reader.ok()) << reader.status();
  (*reader)->KeepChroma();
  std::string planes;
  for (int i = 0; i < 2; ++i) {
    ASSERT_TRUE(*(*reader)->ReadPlanes(&planes));
    EXPECT_EQ(planes, MarkedFrame(g, i));
  }
  auto third = (*reader)->ReadPlanes(&planes);
  ASSERT_FALSE(third.ok());
  EXPECT_THAT(std::string(third.status().message()), HasSubstr("frame 2 is truncated"));
  EXPECT_THAT(std::string(third.status().message()), HasSubstr("after 20 of its 24 bytes"));
}

TEST(FrameReaderTest, KeepChromaPositionalReadsGiveWholeFramesInAnyOrder) {
  const Geometry g{5, 3, 8, ChromaFormat::k420};
  const std::string raw = TempPath("keep_chroma_positional.yuv");
  WriteFile(raw, MarkedFrame(g, 0) + MarkedFrame(g, 1) + MarkedFrame(g, 2));
  const Geometry g10{4, 2, 10, ChromaFormat::k444};
  const std::string y4m = TempPath("keep_chroma_positional.y4m");
  WriteFile(y4m, absl::StrCat("YUV4MPEG2 W4 H2 F25:1 C444p10\n", "FRAME\n", MarkedFrame(g10, 0),
                              "FRAME\n", MarkedFrame(g10, 1), "FRAME\n", MarkedFrame(g10, 2)));
  for (const auto& [path, geometry, given] :
       {std::make_tuple(raw, g, std::optional<Geometry>(g)),
        std::make_tuple(y4m, g10, std::optional<Geometry>())}) {
    auto whole = FrameReader::Open(path, given);
    auto luma_only = FrameReader::Open(path, given);
    ASSERT_TRUE(whole.ok() && luma_only.ok()) << path;
    ASSERT_TRUE((*whole)->positional()) << path;
    (*whole)->KeepChroma();
    std::string planes;
    for (int i : {2, 0, 1}) {
      ASSERT_TRUE(*(*whole)->ReadPlanesAt(i, &planes)) << path << " " << i;
      EXPECT_EQ(planes, MarkedFrame(geometry, i)) << path << " " << i;
      ASSERT_TRUE(*(*luma_only)->ReadPlanesAt(i, &planes)) << path << " " << i;
      EXPECT_EQ(planes, MarkedFrame(geometry, i).substr(0, LumaBytes(geometry)))
          << path << " " << i;
    }
    EXPECT_FALSE(*(*whole)->ReadPlanesAt(3, &planes)) << path;
  }
}

TEST(FrameReaderTest, KeepChromaPositionalReadOfATruncatedFrameSaysWhatReadingInOrderSays) {
  const Geometry g{4, 4, 8, ChromaFormat::k420};
  const std::string raw = TempPath("keep_chroma_short.yuv");
  WriteFile(raw, MarkedFrame(g, 0) + MarkedFrame(g, 1).substr(0, 20));
  auto by_position = FrameReader::Open(raw, g);
  auto in_order = FrameReader::Open(raw, g);
  ASSERT_TRUE(by_position.ok() && in_order.ok());
  (*by_position)->KeepChroma();
  (*in_order)->KeepChroma();
  std::string planes;
  absl::StatusOr<bool> got = (*by_position)->ReadPlanesAt(1, &planes);
  ASSERT_FALSE(got.ok());
  EXPECT_THAT(std::string(got.status().message()), HasSubstr("after 20 of its 24 bytes"));
  ASSERT_TRUE(*(*in_order)->ReadPlanes(&planes));
  EXPECT_EQ((*in_order)->ReadPlanes(&planes).status(), got.status());
}

TEST(FrameReaderTest, MissingFileIsNotFound) {
  auto reader = FrameReader::Open(TempPath("absent.yuv"), Geometry{4, 4, 8, ChromaFormat::k420});
  EXPECT_EQ(reader.status().code(), absl::StatusCode::kNotFound);
}

TEST(FrameReaderTest, FormatFromExtension) {
  EXPECT_EQ(FileFormatForPath("a/b.Y4M"), FileFormat::kY4m);
  EXPECT_EQ(FileFormatForPath("a/b.yuv"), FileFormat::kRawYuv);
  EXPECT_EQ(FileFormatForPath("y4m"), FileFormat::kRawYuv);
}

}  // namespace
}  // namespace ssimd
