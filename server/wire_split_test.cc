#include "server/wire_split.h"

#include <string>

#include "gtest/gtest.h"

namespace ssimd {
namespace {

// `bytes` cut into chunks of `size` bytes.
Chunks Cut(const std::string& bytes, size_t size) {
  Chunks chunks;
  for (size_t at = 0; at < bytes.size(); at += size) {
    chunks.emplace_back(reinterpret_cast<const uint8_t*>(bytes.data()) + at,
                        std::min(size, bytes.size() - at));
  }
  return chunks;
}

std::string Gathered(const PlanePieces& pieces) {
  std::string out;
  for (const auto& piece : pieces.pieces()) out.append(piece.begin(), piece.end());
  return out;
}

// field 1 varint 300, field 2 bytes "hello", field 7 fixed32, field 3 bytes "", field 2 bytes
// "world!" again, field 9 fixed64.
const std::string kMessage = std::string("\x08\xac\x02", 3) + "\x12\x05hello" +
                             std::string("\x3d\x01\x02\x03\x04", 5) + std::string("\x1a\x00", 2) +
                             "\x12\x06world!" + std::string("\x49\x01\x02\x03\x04\x05\x06\x07\x08", 9);

TEST(WireSplitTest, KeepsTheLastOccurrenceOfEachKeptFieldAndCopiesTheRest) {
  for (size_t size : {size_t{1}, size_t{2}, size_t{3}, size_t{5}, kMessage.size()}) {
    const Chunks chunks = Cut(kMessage, size);
    ChunkReader reader(chunks);
    PlanePieces a, b;
    std::string rest;
    ASSERT_EQ(SplitFields(reader, reader.size(), {2, &a}, {3, &b}, &rest), SplitOutcome::kSplit)
        << "chunks of " << size;
    EXPECT_EQ(Gathered(a), "world!");
    EXPECT_EQ(b.size(), 0u);
    EXPECT_EQ(rest, std::string("\x08\xac\x02", 3) + std::string("\x3d\x01\x02\x03\x04", 5) +
                        std::string("\x49\x01\x02\x03\x04\x05\x06\x07\x08", 9));
    EXPECT_EQ(reader.position(), kMessage.size());
  }
}

TEST(WireSplitTest, PiecesPointIntoTheChunks) {
  const Chunks chunks = Cut(kMessage, 4);
  ChunkReader reader(chunks);
  PlanePieces a, b;
  std::string rest;
  ASSERT_EQ(SplitFields(reader, reader.size(), {2, &a}, {3, &b}, &rest), SplitOutcome::kSplit);
  for (const auto& piece : a.pieces()) {
    EXPECT_GE(piece.data(), reinterpret_cast<const uint8_t*>(kMessage.data()));
    EXPECT_LE(piece.data() + piece.size(),
              reinterpret_cast<const uint8_t*>(kMessage.data()) + kMessage.size());
  }
}

TEST(WireSplitTest, ReportsCorruptAndUnusualEncodings) {
  const std::pair<std::string, SplitOutcome> cases[] = {
      {std::string("\x12\x09hello", 7), SplitOutcome::kCorrupt},  // length past the end
      {std::string("\x08\xff", 2), SplitOutcome::kCorrupt},       // varint cut short
      {std::string("\x00\x01", 2), SplitOutcome::kCorrupt},       // field number 0
      {std::string("\x0e\x01", 2), SplitOutcome::kCorrupt},       // wire type 6
      {std::string("\x0b\x0c", 2), SplitOutcome::kUnusual},       // a group
      {std::string("\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 12),
       SplitOutcome::kCorrupt},  // an 11-byte varint
      {std::string("\x12\x80\x80\x80\x80\x10", 6), SplitOutcome::kCorrupt},  // length >= 2^31
      {std::string("\x0f\x01", 2), SplitOutcome::kCorrupt},                  // wire type 7
      {std::string("\x80\x80\x80\x80\x10\x01", 6), SplitOutcome::kCorrupt},  // field 2^29
      // A kept field's length padded to 6 bytes: left to protobuf.
      {std::string("\x12\x85\x80\x80\x80\x80\x00hello", 12), SplitOutcome::kCorrupt},
      // Another field's 10-byte varint (0, padded) is copied as it is.
      {std::string("\x08\x80\x80\x80\x80\x80\x80\x80\x80\x80\x00", 11), SplitOutcome::kSplit},
  };
  for (const auto& [bytes, outcome] : cases) {
    const Chunks chunks = Cut(bytes, 1);
    ChunkReader reader(chunks);
    PlanePieces a, b;
    std::string rest;
    EXPECT_EQ(SplitFields(reader, reader.size(), {2, &a}, {3, &b}, &rest), outcome)
        << testing::PrintToString(bytes);
  }
}

TEST(WireSplitTest, AnEmptyMessageSplitsIntoNothing) {
  const Chunks chunks;
  ChunkReader reader(chunks);
  PlanePieces a, b;
  std::string rest;
  EXPECT_EQ(SplitFields(reader, 0, {2, &a}, {3, &b}, &rest), SplitOutcome::kSplit);
  EXPECT_TRUE(rest.empty());
}

}  // namespace
}  // namespace ssimd
