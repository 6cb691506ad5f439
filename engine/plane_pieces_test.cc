#include "engine/plane_pieces.h"

#include <string>

#include "gtest/gtest.h"

namespace ssimd {
namespace {

absl::Span<const uint8_t> Span(const std::string& s, size_t from, size_t n) {
  return absl::Span<const uint8_t>(reinterpret_cast<const uint8_t*>(s.data()) + from, n);
}

TEST(PlanePiecesTest, OnePieceIsReturnedWithoutACopy) {
  const std::string bytes = "abcdef";
  PlanePieces plane(Span(bytes, 0, bytes.size()));
  std::vector<uint8_t> scratch;
  const absl::Span<const uint8_t> whole = plane.Gather(scratch);
  EXPECT_EQ(whole.data(), reinterpret_cast<const uint8_t*>(bytes.data()));
  EXPECT_EQ(whole.size(), 6u);
  EXPECT_TRUE(scratch.empty());
}

TEST(PlanePiecesTest, PiecesAreGatheredInOrderAndEmptyOnesDropped) {
  const std::string bytes = "0123456789";
  PlanePieces plane;
  plane.Add(Span(bytes, 0, 3));
  plane.Add(Span(bytes, 3, 0));
  plane.Add(Span(bytes, 3, 7));
  EXPECT_EQ(plane.pieces().size(), 2u);
  EXPECT_EQ(plane.size(), 10u);
  std::vector<uint8_t> scratch(32, 'x');  // a larger buffer from an earlier frame is reused
  const absl::Span<const uint8_t> whole = plane.Gather(scratch);
  EXPECT_EQ(std::string(whole.begin(), whole.end()), bytes);
  EXPECT_EQ(scratch.size(), 32u);
  plane.Clear();
  EXPECT_EQ(plane.size(), 0u);
  EXPECT_TRUE(plane.pieces().empty());
}

}  // namespace
}  // namespace ssimd
