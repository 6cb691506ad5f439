#include "engine/gpu/staging.h"

#include <algorithm>
#include <string>
#include <vector>

#include "engine/fake_device_plane.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace ssimd {
namespace {

using ::testing::HasSubstr;

// A plane with `pad` bytes of 0xff after each row, which staging must neither copy nor check.
struct PaddedPlane {
  std::vector<uint8_t> bytes;
  LumaView view;
};

PaddedPlane MakePadded(int width, int height, int bit_depth, size_t pad) {
  PaddedPlane p;
  const size_t bps = BytesPerSample(bit_depth);
  const size_t stride = width * bps + pad;
  p.bytes.assign(stride * height, 0xff);
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      const uint32_t v = (x * 7 + y * 13) % (PeakValue(bit_depth) + 1);
      uint8_t* s = p.bytes.data() + y * stride + x * bps;
      s[0] = v & 0xff;
      if (bps == 2) s[1] = v >> 8;
    }
  }
  p.view = LumaView{p.bytes.data(), stride, width, height, bit_depth};
  return p;
}

void ExpectPackedCopy(const PaddedPlane& p, const std::vector<uint8_t>& staged) {
  for (int y = 0; y < p.view.height; ++y) {
    for (int x = 0; x < p.view.width; ++x) {
      LumaView packed{staged.data(),
                      p.view.width * static_cast<size_t>(BytesPerSample(p.view.bit_depth)),
                      p.view.width, p.view.height, p.view.bit_depth};
      ASSERT_EQ(packed.Sample(x, y), p.view.Sample(x, y)) << x << "," << y;
    }
  }
}

TEST(StagingTest, PacksRowsOfEveryDepthAndIgnoresRowPadding) {
  for (int bit_depth : {8, 10, 12, 16}) {
    for (int width : {1, 3, 4, 5, 17, 64}) {  // odd widths exercise the tail after 8-byte words
      const PaddedPlane p = MakePadded(width, 5, bit_depth, 6);
      std::vector<uint8_t> staged(static_cast<size_t>(width) * 5 * BytesPerSample(bit_depth));
      ASSERT_TRUE(StageLumaPlane(p.view, staged.data(), "reference").ok())
          << bit_depth << "-bit width " << width;
      ExpectPackedCopy(p, staged);
    }
  }
}

TEST(StagingTest, ASampleAboveThePeakIsRefusedWithTheCpuEnginesMessage) {
  for (int bit_depth : {10, 12}) {
    for (int x : {0, 3, 4, 16}) {  // inside an 8-byte word and in the tail
      PaddedPlane p = MakePadded(17, 3, bit_depth, 2);
      const uint32_t bad = PeakValue(bit_depth) + 1;
      uint8_t* s = p.bytes.data() + 2 * p.view.stride_bytes + 2 * x;
      s[0] = bad & 0xff;
      s[1] = bad >> 8;
      std::vector<uint8_t> staged(17 * 3 * 2);
      const absl::Status status = StageLumaPlane(p.view, staged.data(), "distorted");
      EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << bit_depth << " " << x;
      EXPECT_EQ(status, ValidateSampleRange(p.view, "distorted luma"));
      EXPECT_THAT(status.message(), HasSubstr("distorted luma"));
    }
  }
}

TEST(StagingTest, ThePeakItselfIsAccepted) {
  PaddedPlane p = MakePadded(9, 2, 16, 0);
  p.bytes.assign(p.bytes.size(), 0xff);  // every sample 65535
  std::vector<uint8_t> staged(p.bytes.size());
  EXPECT_TRUE(StageLumaPlane(p.view, staged.data(), "reference").ok());
}

// The plane's bytes cut into pieces of `piece` bytes (the last one shorter).
PlanePieces Cut(const std::vector<uint8_t>& bytes, size_t piece) {
  PlanePieces pieces;
  for (size_t at = 0; at < bytes.size(); at += piece) {
    pieces.Add(absl::Span<const uint8_t>(bytes.data() + at, std::min(piece, bytes.size() - at)));
  }
  return pieces;
}

TEST(StagingTest, PiecesSplitAnywhereStageLikeTheWholePlane) {
  for (int bit_depth : {8, 10, 16}) {
    const PaddedPlane p = MakePadded(37, 600, bit_depth, 0);  // > one 16 KiB copy block
    for (size_t piece : {size_t{1}, size_t{3}, size_t{7}, size_t{4096}, size_t{20001},
                         p.bytes.size()}) {
      std::vector<uint8_t> staged(p.bytes.size(), 0xee);
      const Geometry g{37, 600, bit_depth, ChromaFormat::k420};
      ASSERT_TRUE(StageLumaPieces(g, Cut(p.bytes, piece), staged.data(), "reference").ok())
          << bit_depth << "-bit pieces of " << piece;
      EXPECT_EQ(staged, p.bytes) << bit_depth << "-bit pieces of " << piece;
    }
  }
}

TEST(StagingTest, PiecesWithASampleAboveThePeakAreRefusedLikeTheCpuEngine) {
  const Geometry g{17, 3, 10, ChromaFormat::k420};
  for (int x : {0, 5, 16}) {
    PaddedPlane p = MakePadded(17, 3, 10, 0);
    uint8_t* s = p.bytes.data() + 2 * p.view.stride_bytes + 2 * x;
    s[0] = 0x00;
    s[1] = 0x04;  // 1024, one above the 10-bit peak
    std::vector<uint8_t> staged(p.bytes.size());
    const absl::Status status = StageLumaPieces(g, Cut(p.bytes, 5), staged.data(), "distorted");
    EXPECT_EQ(status, ValidateSampleRange(p.view, "distorted luma")) << x;
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  }
}

// A plane on a device other than the slot's comes through the host: copied, then checked.
TEST(StagingTest, APlaneOnAnotherDeviceIsCopiedAndChecked) {
  const Geometry g{17, 3, 10, ChromaFormat::k420};
  PaddedPlane p = MakePadded(17, 3, 10, 0);
  const std::string packed(p.bytes.begin(), p.bytes.end());
  const FakeDevicePlane good(packed, 17, 3, 10);
  std::vector<uint8_t> staged(p.bytes.size());
  ASSERT_TRUE(StageLumaPieces(g, PlanePieces(good), staged.data(), "reference").ok());
  EXPECT_EQ(staged, p.bytes);
  EXPECT_EQ(good.copies, 1);

  p.bytes[2 * 17 * 2 + 1] = 0x04;  // row 2, sample 0: 1024, above the 10-bit peak
  const FakeDevicePlane bad(std::string(p.bytes.begin(), p.bytes.end()), 17, 3, 10);
  EXPECT_EQ(StageLumaPieces(g, PlanePieces(bad), staged.data(), "distorted"),
            ValidateSampleRange(p.view, "distorted luma"));

  const FakeDevicePlane lost(packed, 17, 3, 10, absl::UnavailableError("the GPU was lost"));
  EXPECT_EQ(StageLumaPieces(g, PlanePieces(lost), staged.data(), "distorted").code(),
            absl::StatusCode::kUnavailable);
}

// Every sample position, in pieces that start at even and odd offsets and span the 64-byte wide
// loop, its 8-byte words and the byte tail: one sample one above the peak is always found.
TEST(StagingTest, ASampleAboveThePeakIsFoundAtEveryPositionAndPieceCut) {
  const int width = 48, height = 30;
  const Geometry g{width, height, 10, ChromaFormat::k420};
  const PaddedPlane clean = MakePadded(width, height, 10, 0);
  for (size_t piece : {size_t{7}, size_t{333}, size_t{4096}, clean.bytes.size()}) {
    std::vector<uint8_t> staged(clean.bytes.size());
    ASSERT_TRUE(StageLumaPieces(g, Cut(clean.bytes, piece), staged.data(), "reference").ok());
    for (int at = 0; at < width * height; ++at) {
      std::vector<uint8_t> bytes = clean.bytes;
      bytes[2 * at] = 0x00;
      bytes[2 * at + 1] = 0x04;  // 1024
      const absl::Status status = StageLumaPieces(g, Cut(bytes, piece), staged.data(), "reference");
      ASSERT_EQ(status.code(), absl::StatusCode::kInvalidArgument)
          << "sample " << at << ", pieces of " << piece;
    }
  }
}

TEST(StagingTest, PiecesOfTheWrongSizeAreRefused) {
  const PaddedPlane p = MakePadded(8, 2, 12, 0);
  std::vector<uint8_t> staged(p.bytes.size() + 2);
  const Geometry g{8, 2, 12, ChromaFormat::k420};
  std::vector<uint8_t> longer = p.bytes;
  longer.push_back(0);
  longer.push_back(0);
  const absl::Status status = StageLumaPieces(g, Cut(longer, 9), staged.data(), "reference");
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("reference luma has 34 bytes"));
  EXPECT_THAT(status.message(), HasSubstr("needs exactly 32 bytes"));
}

}  // namespace
}  // namespace ssimd
