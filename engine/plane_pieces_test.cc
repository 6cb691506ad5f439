#include "engine/plane_pieces.h"

#include <string>

#include "absl/status/status.h"
#include "engine/fake_device_plane.h"

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

TEST(PlanePiecesTest, HostBytesOfHostPiecesAreGathered) {
  const std::string bytes = "0123456789";
  PlanePieces plane;
  plane.Add(Span(bytes, 0, 4));
  plane.Add(Span(bytes, 4, 6));
  std::vector<uint8_t> scratch;
  absl::StatusOr<absl::Span<const uint8_t>> whole = plane.HostBytes(scratch);
  ASSERT_TRUE(whole.ok()) << whole.status();
  EXPECT_EQ(std::string(whole->begin(), whole->end()), bytes);
  EXPECT_EQ(plane.device(), nullptr);
}

TEST(PlanePiecesTest, ADevicePlaneIsCopiedToTheHostOnlyWhenAsked) {
  const FakeDevicePlane device("abcdefghijkl", 4, 3, 8);
  const PlanePieces plane(device);
  EXPECT_EQ(plane.device(), &device);
  EXPECT_EQ(plane.size(), 12u);
  EXPECT_TRUE(plane.pieces().empty());
  EXPECT_EQ(device.copies, 0);
  std::vector<uint8_t> scratch;
  absl::StatusOr<absl::Span<const uint8_t>> whole = plane.HostBytes(scratch);
  ASSERT_TRUE(whole.ok()) << whole.status();
  EXPECT_EQ(std::string(whole->begin(), whole->end()), "abcdefghijkl");
  EXPECT_EQ(device.copies, 1);
}

TEST(PlanePiecesTest, AFailedCopyFromTheDeviceIsReturned) {
  const FakeDevicePlane device("abcd", 2, 2, 8, absl::UnavailableError("the device went away"));
  std::vector<uint8_t> scratch;
  absl::StatusOr<absl::Span<const uint8_t>> whole = PlanePieces(device).HostBytes(scratch);
  EXPECT_EQ(whole.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(whole.status().message(), "the device went away");
}

}  // namespace
}  // namespace ssimd
