#include "tools/fault_load/y4m_files.h"

#include <sys/stat.h>

#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace ssimd::fault_load {
namespace {

using ::testing::HasSubstr;

std::string TempPath(const std::string& name) {
  return std::string(::testing::TempDir()) + "/" + name;
}

std::string Luma(const Geometry& g, int seed) {
  std::string luma(LumaBytes(g), '\0');
  for (size_t i = 0; i < luma.size(); ++i) luma[i] = static_cast<char>((i * 7 + seed * 13) & 0xff);
  if (g.bit_depth > 8) {
    // Samples within the depth's range: every second byte is the high one.
    for (size_t i = 1; i < luma.size(); i += 2) luma[i] = static_cast<char>(luma[i] & 0x03);
  }
  return luma;
}

TEST(Y4mFilesTest, HeaderLineNamesSizeAndLayout) {
  EXPECT_EQ(Y4mHeaderLine({64, 36, 8, ChromaFormat::k420}),
            "YUV4MPEG2 W64 H36 F25:1 Ip A1:1 C420jpeg\n");
  EXPECT_EQ(Y4mHeaderLine({96, 54, 10, ChromaFormat::k422}),
            "YUV4MPEG2 W96 H54 F25:1 Ip A1:1 C422p10\n");
  EXPECT_EQ(Y4mHeaderLine({8, 8, 8, ChromaFormat::k400}), "YUV4MPEG2 W8 H8 F25:1 Ip A1:1 Cmono\n");
}

TEST(Y4mFilesTest, WritesAndReadsBackEveryFramesLuma) {
  for (const Geometry& g : {Geometry{64, 36, 8, ChromaFormat::k420},
                            Geometry{96, 54, 10, ChromaFormat::k422},
                            Geometry{20, 10, 8, ChromaFormat::k444},
                            Geometry{16, 8, 16, ChromaFormat::k400}}) {
    const std::string path = TempPath("roundtrip.y4m");
    auto writer = Y4mFileWriter::Create(path, g);
    ASSERT_TRUE(writer.ok()) << writer.status();
    for (int f = 0; f < 3; ++f) ASSERT_TRUE(writer->AddFrame(Luma(g, f)).ok());
    ASSERT_TRUE(writer->Finish().ok());

    struct stat st;
    ASSERT_EQ(::stat(path.c_str(), &st), 0);
    EXPECT_EQ(static_cast<size_t>(st.st_size), Y4mHeaderLine(g).size() + 3 * (6 + FrameBytes(g)));
    Geometry read;
    auto frames = ReadY4mLuma(path, &read, 100);
    ASSERT_TRUE(frames.ok()) << frames.status();
    EXPECT_EQ(read.width, g.width);
    EXPECT_EQ(read.height, g.height);
    EXPECT_EQ(read.bit_depth, g.bit_depth);
    EXPECT_EQ(read.chroma, g.chroma);
    ASSERT_EQ(frames->size(), 3u);
    for (int f = 0; f < 3; ++f) EXPECT_EQ((*frames)[f], Luma(g, f)) << "frame " << f;
    // At most the frames asked for.
    auto first = ReadY4mLuma(path, &read, 1);
    ASSERT_TRUE(first.ok());
    EXPECT_EQ(first->size(), 1u);
  }
}

TEST(Y4mFilesTest, RefusesALumaPlaneOfTheWrongSize) {
  const Geometry g{64, 36, 8, ChromaFormat::k420};
  auto writer = Y4mFileWriter::Create(TempPath("short.y4m"), g);
  ASSERT_TRUE(writer.ok());
  EXPECT_FALSE(writer->AddFrame(std::string(LumaBytes(g) - 1, '\0')).ok());
}

// Nothing appears under the final name until Finish: the server never reads half a file.
TEST(Y4mFilesTest, UnfinishedFileIsNotInPlace) {
  const std::string path = TempPath("unfinished.y4m");
  {
    auto writer = Y4mFileWriter::Create(path, {8, 8, 8, ChromaFormat::k420});
    ASSERT_TRUE(writer.ok());
    ASSERT_TRUE(writer->AddFrame(std::string(64, 'x')).ok());
  }
  struct stat st;
  EXPECT_NE(::stat(path.c_str(), &st), 0);
  EXPECT_NE(::stat((path + ".partial").c_str(), &st), 0);
}

TEST(Y4mFilesTest, SparseBombClaimsHugePicturesAndCostsNoDisk) {
  const std::string path = TempPath("bomb.y4m");
  const Geometry huge{20000, 20000, 8, ChromaFormat::k420};
  ASSERT_TRUE(WriteSparseY4m(path, huge, 2).ok());
  struct stat st;
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(static_cast<size_t>(st.st_size), Y4mHeaderLine(huge).size() + 2 * (6 + FrameBytes(huge)));
  EXPECT_LT(static_cast<int64_t>(st.st_blocks) * 512, int64_t{1} << 20);  // holes, not bytes
  std::ifstream in(path, std::ios::binary);
  std::string header;
  std::getline(in, header);
  EXPECT_EQ(header + "\n", Y4mHeaderLine(huge));
  std::string frame;
  std::getline(in, frame);
  EXPECT_EQ(frame, "FRAME");
  // Over the pixel limit: the tool's own reader refuses it as well.
  Geometry read;
  auto frames = ReadY4mLuma(path, &read, 1);
  EXPECT_FALSE(frames.ok());
}

TEST(Y4mFilesTest, ReadsFfmpegsMonoTagAndRejectsGarbage) {
  const std::string path = TempPath("mono.y4m");
  {
    std::ofstream out(path, std::ios::binary);
    out << "YUV4MPEG2 W4 H2 F25:1 Ip A0:0 Cmono XYSCSS=MONO\nFRAME\n" << std::string(8, 'a');
  }
  Geometry g;
  auto frames = ReadY4mLuma(path, &g, 10);
  ASSERT_TRUE(frames.ok()) << frames.status();
  EXPECT_EQ(g.chroma, ChromaFormat::k400);
  ASSERT_EQ(frames->size(), 1u);
  EXPECT_EQ((*frames)[0], std::string(8, 'a'));

  {
    std::ofstream out(path, std::ios::binary);
    out << "YUV4MPEG2 W4 H2 C420jpeg\nFRAME\nabc";
  }
  auto cut = ReadY4mLuma(path, &g, 10);
  ASSERT_FALSE(cut.ok());
  EXPECT_THAT(cut.status().message(), HasSubstr("cut short"));
  {
    std::ofstream out(path, std::ios::binary);
    out << "RIFF....";
  }
  EXPECT_FALSE(ReadY4mLuma(path, &g, 10).ok());
}

TEST(Y4mFilesTest, MakesNestedDirectories) {
  const std::string dir = TempPath("a/b/c");
  ASSERT_TRUE(MakeDirectories(dir).ok());
  ASSERT_TRUE(MakeDirectories(dir).ok());  // again: already there
  struct stat st;
  ASSERT_EQ(::stat(dir.c_str(), &st), 0);
  EXPECT_TRUE(S_ISDIR(st.st_mode));
}

}  // namespace
}  // namespace ssimd::fault_load
