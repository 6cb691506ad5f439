#include "server/wire_request.h"

#include <random>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"

namespace ssimd {
namespace {

using ::testing::HasSubstr;

Chunks Cut(const std::string& bytes, const std::vector<size_t>& sizes) {
  Chunks chunks;
  size_t at = 0;
  for (size_t i = 0; at < bytes.size(); ++i) {
    const size_t n = std::min(sizes[i % sizes.size()], bytes.size() - at);
    chunks.emplace_back(reinterpret_cast<const uint8_t*>(bytes.data()) + at, n);
    at += n;
  }
  return chunks;
}

std::string Gathered(const PlanePieces& pieces) {
  std::vector<uint8_t> scratch;
  const absl::Span<const uint8_t> whole = pieces.Gather(scratch);
  return std::string(whole.begin(), whole.end());
}

// The message a ReceivedClipMessage stands for, to compare with protobuf's own parse.
v1::ScoreClipRequest Rebuilt(const ReceivedClipMessage& m) {
  if (!m.frame_index.has_value()) return m.other;
  v1::ScoreClipRequest r;
  r.mutable_frame()->set_index(*m.frame_index);
  r.mutable_frame()->set_reference_luma(Gathered(m.planes.reference));
  r.mutable_frame()->set_distorted_luma(Gathered(m.planes.distorted));
  return r;
}

v1::ScoreClipRequest Frame(uint64_t index, size_t bytes) {
  v1::ScoreClipRequest r;
  r.mutable_frame()->set_index(index);
  std::string ref(bytes, '\0'), dis(bytes, '\0');
  for (size_t i = 0; i < bytes; ++i) {
    ref[i] = static_cast<char>(i * 7);
    dis[i] = static_cast<char>(i * 11 + 3);
  }
  r.mutable_frame()->set_reference_luma(ref);
  r.mutable_frame()->set_distorted_luma(dis);
  return r;
}

// Serialized messages, some in the usual encoding and some not, each cut several ways: the
// result must equal protobuf's parse of the same bytes.
TEST(WireRequestTest, ClipMessagesReadAsProtobufParsesThemHoweverTheyAreCut) {
  std::vector<std::string> encodings;
  encodings.push_back(Frame(0, 1000).SerializeAsString());
  encodings.push_back(Frame(41, 1).SerializeAsString());
  encodings.push_back(Frame(7, 0).SerializeAsString());
  v1::ScoreClipRequest config;
  config.mutable_config()->mutable_geometry()->set_width(1920);
  config.mutable_config()->set_title_id("título");
  encodings.push_back(config.SerializeAsString());
  encodings.push_back("");  // neither field
  // Two frame fields: protobuf merges them (the second's planes, the first's index).
  v1::ScoreClipRequest second = Frame(0, 5);
  second.mutable_frame()->clear_index();
  encodings.push_back(Frame(3, 9).SerializeAsString() + second.SerializeAsString());
  // A frame then a config: the oneof keeps the last.
  encodings.push_back(Frame(3, 9).SerializeAsString() + config.SerializeAsString());
  // A frame with an unknown field inside and a plane that appears twice.
  encodings.push_back(std::string("\x12\x0c", 2) + std::string("\x08\x05", 2) +
                      std::string("\x12\x02xy", 4) + std::string("\x28\x01", 2) +
                      std::string("\x12\x02zw", 4));

  std::mt19937 rng(7);
  for (const std::string& bytes : encodings) {
    v1::ScoreClipRequest expected;
    ASSERT_TRUE(expected.ParseFromString(bytes));
    expected.DiscardUnknownFields();  // the server ignores them either way
    std::vector<std::vector<size_t>> cuts = {{bytes.size() + 1}, {1}, {2, 5}, {64}};
    for (int i = 0; i < 8; ++i) cuts.push_back({1 + rng() % 97, 1 + rng() % 13});
    for (const std::vector<size_t>& cut : cuts) {
      const Chunks chunks = Cut(bytes, cut);
      absl::StatusOr<ReceivedClipMessage> got = ReadScoreClipRequestFromChunks(chunks);
      ASSERT_TRUE(got.ok()) << got.status();
      EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(Rebuilt(*got), expected))
          << Rebuilt(*got).DebugString() << " vs " << expected.DebugString();
    }
  }
}

TEST(WireRequestTest, AFrameInTheUsualEncodingIsNotCopied) {
  const std::string bytes = Frame(12, 4096).SerializeAsString();
  const Chunks chunks = Cut(bytes, {1000});
  absl::StatusOr<ReceivedClipMessage> got = ReadScoreClipRequestFromChunks(chunks);
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_EQ(got->frame_index, 12u);
  EXPECT_EQ(got->planes.storage, nullptr);  // no parsed copy stands behind the pieces
  EXPECT_GE(got->planes.reference.pieces().size(), 4u);
  const uint8_t* begin = reinterpret_cast<const uint8_t*>(bytes.data());
  for (const PlanePieces* plane : {&got->planes.reference, &got->planes.distorted}) {
    for (const auto& piece : plane->pieces()) {
      EXPECT_GE(piece.data(), begin);
      EXPECT_LE(piece.data() + piece.size(), begin + bytes.size());
    }
  }
}

TEST(WireRequestTest, MessagesThatDoNotParseAreInvalidArgument) {
  v1::ScoreClipRequest config;
  config.mutable_config()->set_title_id("ok");
  std::string bad_utf8 = config.SerializeAsString();
  bad_utf8.replace(bad_utf8.find("ok"), 2, "\xff\xfe");
  const std::string truncated = Frame(1, 100).SerializeAsString().substr(0, 50);
  for (const std::string& bytes : {bad_utf8, truncated, std::string("\x12\x05\x0b", 3)}) {
    const Chunks chunks = Cut(bytes, {3});
    absl::StatusOr<ReceivedClipMessage> got = ReadScoreClipRequestFromChunks(chunks);
    EXPECT_EQ(got.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(got.status().message(), HasSubstr("does not parse as ssimd.v1.ScoreClipRequest"));
  }
}

TEST(WireRequestTest, PairRequestsReadAsProtobufParsesThem) {
  v1::ScorePairRequest request;
  request.mutable_geometry()->set_width(4);
  request.mutable_geometry()->set_height(2);
  request.mutable_features()->add_feature_args("float_ssim");
  request.set_backend(v1::BACKEND_CPU);
  request.set_reference_luma(std::string(8, '\x10'));
  request.set_distorted_luma(std::string(8, '\x20'));
  const std::string bytes = request.SerializeAsString();
  for (size_t cut : {size_t{1}, size_t{3}, bytes.size()}) {
    const Chunks chunks = Cut(bytes, {cut});
    absl::StatusOr<ReceivedPairMessage> got = ReadScorePairRequestFromChunks(chunks);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_EQ(got->planes.storage, nullptr);
    v1::ScorePairRequest rebuilt = got->fields;
    EXPECT_TRUE(rebuilt.reference_luma().empty());  // the planes are only in the pieces
    EXPECT_TRUE(rebuilt.distorted_luma().empty());
    rebuilt.set_reference_luma(Gathered(got->planes.reference));
    rebuilt.set_distorted_luma(Gathered(got->planes.distorted));
    EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(rebuilt, request));
  }
  // A string that is not UTF-8 takes the whole-message path and is refused there.
  request.mutable_features()->set_feature_args(0, "float_ssim#");
  std::string bad = request.SerializeAsString();
  bad[bad.find('#')] = '\xff';
  EXPECT_EQ(ReadScorePairRequestFromChunks(Cut(bad, {5})).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace ssimd
