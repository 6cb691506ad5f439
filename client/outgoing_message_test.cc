#include "client/outgoing_message.h"

#include <string>
#include <vector>

#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"

namespace ssimd {
namespace {

using google::protobuf::util::MessageDifferencer;

std::string Bytes(const grpc::ByteBuffer& buffer) {
  std::vector<grpc::Slice> slices;
  EXPECT_TRUE(buffer.Dump(&slices).ok());
  std::string out;
  for (const grpc::Slice& s : slices) out.append(reinterpret_cast<const char*>(s.begin()), s.size());
  return out;
}

std::shared_ptr<OutgoingPlanes> Planes(size_t bytes) {
  auto planes = std::make_shared<OutgoingPlanes>();
  for (size_t i = 0; i < bytes; ++i) {
    planes->reference.push_back(static_cast<char>(i * 3));
    planes->distorted.push_back(static_cast<char>(i * 5 + 1));
  }
  return planes;
}

TEST(OutgoingMessageTest, FrameRequestsAreWhatProtobufWrites) {
  for (uint64_t index : {uint64_t{0}, uint64_t{1}, uint64_t{127}, uint64_t{128}, uint64_t{1} << 40}) {
    for (size_t bytes : {size_t{0}, size_t{1}, size_t{200}, size_t{70000}}) {
      auto planes = Planes(bytes);
      v1::ScoreClipRequest expected;
      expected.mutable_frame()->set_index(index);
      expected.mutable_frame()->set_reference_luma(planes->reference);
      expected.mutable_frame()->set_distorted_luma(planes->distorted);
      const std::string bytes_written = Bytes(FrameRequestBuffer(index, planes));
      EXPECT_EQ(bytes_written, expected.SerializeAsString()) << index << " " << bytes;
    }
  }
}

TEST(OutgoingMessageTest, PairRequestsParseAsTheMessage) {
  v1::ScorePairRequest fields;
  fields.mutable_geometry()->set_width(1920);
  fields.mutable_geometry()->set_height(1080);
  fields.mutable_features()->add_feature_args("float_ssim");
  fields.set_backend(v1::BACKEND_GPU);
  auto planes = Planes(3000);
  v1::ScorePairRequest parsed;
  ASSERT_TRUE(parsed.ParseFromString(Bytes(PairRequestBuffer(fields, planes))));
  v1::ScorePairRequest expected = fields;
  expected.set_reference_luma(planes->reference);
  expected.set_distorted_luma(planes->distorted);
  EXPECT_TRUE(MessageDifferencer::Equals(parsed, expected));
}

TEST(OutgoingMessageTest, PlanesAreReferencedNotCopiedAndKeptAlive) {
  auto planes = Planes(5000);
  const char* reference = planes->reference.data();
  grpc::ByteBuffer buffer = FrameRequestBuffer(3, planes);
  std::weak_ptr<OutgoingPlanes> watch = planes;
  planes.reset();
  EXPECT_FALSE(watch.expired());  // the buffer's slices hold the planes
  std::vector<grpc::Slice> slices;
  ASSERT_TRUE(buffer.Dump(&slices).ok());
  bool found = false;
  for (const grpc::Slice& s : slices) found |= reinterpret_cast<const char*>(s.begin()) == reference;
  EXPECT_TRUE(found) << "no slice points at the reference plane's own bytes";
  slices.clear();
  buffer.Clear();
  EXPECT_TRUE(watch.expired());
}

}  // namespace
}  // namespace ssimd
