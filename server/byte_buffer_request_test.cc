#include "server/byte_buffer_request.h"

#include <algorithm>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace ssimd {
namespace {

std::string Gathered(const PlanePieces& pieces) {
  std::vector<uint8_t> scratch;
  const absl::Span<const uint8_t> whole = pieces.Gather(scratch);
  return std::string(whole.begin(), whole.end());
}

v1::ScoreClipRequest Frame(uint64_t index, size_t bytes) {
  v1::ScoreClipRequest r;
  r.mutable_frame()->set_index(index);
  r.mutable_frame()->set_reference_luma(std::string(bytes, '\x21'));
  r.mutable_frame()->set_distorted_luma(std::string(bytes, '\x42'));
  return r;
}

TEST(ByteBufferRequestTest, TheResultKeepsTheReceivedSlicesAlive) {
  const std::string bytes = Frame(5, 300).SerializeAsString();
  absl::StatusOr<ReceivedClipMessage> got;
  {
    std::vector<grpc::Slice> slices;
    for (size_t at = 0; at < bytes.size(); at += 100) {
      slices.emplace_back(bytes.data() + at, std::min<size_t>(100, bytes.size() - at));
    }
    grpc::ByteBuffer buffer(slices.data(), slices.size());
    got = ReadScoreClipRequest(buffer);
  }  // the buffer and the caller's slices are gone; the result's storage holds the bytes
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_NE(got->planes.storage, nullptr);
  EXPECT_EQ(Gathered(got->planes.reference), Frame(5, 300).frame().reference_luma());
  EXPECT_EQ(Gathered(got->planes.distorted), Frame(5, 300).frame().distorted_luma());
}

TEST(ByteBufferRequestTest, APairRequestKeepsItsSlicesToo) {
  v1::ScorePairRequest request;
  request.mutable_geometry()->set_width(16);
  request.set_reference_luma(std::string(700, '\x01'));
  request.set_distorted_luma(std::string(700, '\x02'));
  const std::string bytes = request.SerializeAsString();
  absl::StatusOr<ReceivedPairMessage> got;
  {
    grpc::Slice slice(bytes.data(), bytes.size());
    grpc::ByteBuffer buffer(&slice, 1);
    got = ReadScorePairRequest(buffer);
  }
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(got->fields.geometry().width(), 16);
  EXPECT_EQ(Gathered(got->planes.reference), request.reference_luma());
  EXPECT_EQ(Gathered(got->planes.distorted), request.distorted_luma());
}

}  // namespace
}  // namespace ssimd
