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

// Planes of `bytes` bytes each, and chroma of `chroma_bytes` (none when 0). Sizes need not be
// those of a real picture: the messages carry bytes, whatever their meaning.
std::shared_ptr<OutgoingPlanes> Planes(size_t bytes, size_t chroma_bytes = 0) {
  auto planes = std::make_shared<OutgoingPlanes>();
  for (size_t i = 0; i < bytes; ++i) {
    planes->reference.push_back(static_cast<char>(i * 3));
    planes->distorted.push_back(static_cast<char>(i * 5 + 1));
  }
  for (size_t i = 0; i < chroma_bytes; ++i) {
    planes->reference_chroma.push_back(static_cast<char>(i * 7 + 2));
    planes->distorted_chroma.push_back(static_cast<char>(i * 11 + 3));
  }
  return planes;
}

void SetFramePlanes(const OutgoingPlanes& planes, v1::FramePair* frame) {
  frame->set_reference_luma(planes.reference);
  frame->set_distorted_luma(planes.distorted);
  frame->set_reference_chroma(planes.reference_chroma);
  frame->set_distorted_chroma(planes.distorted_chroma);
}

void SetPairPlanes(const OutgoingPlanes& planes, v1::ScorePairRequest* request) {
  request->set_reference_luma(planes.reference);
  request->set_distorted_luma(planes.distorted);
  request->set_reference_chroma(planes.reference_chroma);
  request->set_distorted_chroma(planes.distorted_chroma);
}

TEST(OutgoingMessageTest, FrameRequestsAreWhatProtobufWrites) {
  for (uint64_t index : {uint64_t{0}, uint64_t{1}, uint64_t{127}, uint64_t{128}, uint64_t{1} << 40}) {
    for (size_t bytes : {size_t{0}, size_t{1}, size_t{200}, size_t{70000}}) {
      auto planes = Planes(bytes);
      v1::ScoreClipRequest expected;
      expected.mutable_frame()->set_index(index);
      SetFramePlanes(*planes, expected.mutable_frame());
      const std::string bytes_written = Bytes(FrameRequestBuffer(index, planes));
      EXPECT_EQ(bytes_written, expected.SerializeAsString()) << index << " " << bytes;
    }
  }
}

// Luma and chroma sizes of real pictures: 8-bit 4:2:0 (chroma half the luma), 16-bit 4:4:4
// (chroma twice the luma), odd sides rounded up, and 4:0:0 (no chroma at all).
struct PictureBytes {
  size_t luma;
  size_t chroma;
};
constexpr PictureBytes kPictures[] = {
    {576 * 324, 2 * 288 * 162},          // 8-bit 4:2:0
    {2 * 577 * 325, 2 * 2 * 289 * 163},  // 10-bit 4:2:0, odd sides
    {2 * 64 * 48, 2 * 2 * 64 * 48},      // 16-bit 4:4:4
    {2 * 32 * 16, 2 * 2 * 16 * 16},      // 12-bit 4:2:2
    {100 * 10, 0},                       // 8-bit 4:0:0
};

TEST(OutgoingMessageTest, FrameRequestsWithChromaAreWhatProtobufWrites) {
  for (uint64_t index : {uint64_t{0}, uint64_t{5}, uint64_t{300}}) {
    for (const PictureBytes& picture : kPictures) {
      auto planes = Planes(picture.luma, picture.chroma);
      v1::ScoreClipRequest expected;
      expected.mutable_frame()->set_index(index);
      SetFramePlanes(*planes, expected.mutable_frame());
      EXPECT_EQ(Bytes(FrameRequestBuffer(index, planes)), expected.SerializeAsString())
          << index << " " << picture.luma << " " << picture.chroma;
      v1::ScoreClipRequest parsed;
      ASSERT_TRUE(parsed.ParseFromString(Bytes(FrameRequestBuffer(index, planes))));
      EXPECT_EQ(parsed.frame().reference_chroma(), planes->reference_chroma);
      EXPECT_EQ(parsed.frame().distorted_chroma(), planes->distorted_chroma);
    }
  }
}

TEST(OutgoingMessageTest, OneSidedChromaIsWrittenAsProtobufWouldWriteIt) {
  // Not what a client sends, but the writer must not assume both planes come together.
  auto planes = Planes(300, 150);
  planes->distorted_chroma.clear();
  v1::ScoreClipRequest expected;
  expected.mutable_frame()->set_index(2);
  SetFramePlanes(*planes, expected.mutable_frame());
  EXPECT_EQ(Bytes(FrameRequestBuffer(2, planes)), expected.SerializeAsString());
}

v1::ScorePairRequest PairFields() {
  v1::ScorePairRequest fields;
  fields.mutable_geometry()->set_width(1920);
  fields.mutable_geometry()->set_height(1080);
  fields.mutable_features()->add_feature_args("float_ssim");
  fields.set_backend(v1::BACKEND_GPU);
  return fields;
}

TEST(OutgoingMessageTest, PairRequestsParseAsTheMessage) {
  const v1::ScorePairRequest fields = PairFields();
  auto planes = Planes(3000);
  v1::ScorePairRequest parsed;
  ASSERT_TRUE(parsed.ParseFromString(Bytes(PairRequestBuffer(fields, planes))));
  v1::ScorePairRequest expected = fields;
  SetPairPlanes(*planes, &expected);
  EXPECT_TRUE(MessageDifferencer::Equals(parsed, expected));
}

TEST(OutgoingMessageTest, PairRequestsAreWhatProtobufWrites) {
  v1::ScorePairRequest fields = PairFields();
  fields.mutable_features()->add_feature_args("psnr");
  for (const PictureBytes& picture : kPictures) {
    for (bool chroma : {false, true}) {
      auto planes = Planes(picture.luma, chroma ? picture.chroma : 0);
      v1::ScorePairRequest expected = fields;
      SetPairPlanes(*planes, &expected);
      EXPECT_EQ(Bytes(PairRequestBuffer(fields, planes)), expected.SerializeAsString())
          << picture.luma << " " << picture.chroma << " " << chroma;
    }
  }
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

TEST(OutgoingMessageTest, ChromaPlanesAreReferencedNotCopied) {
  auto planes = Planes(5000, 2500);
  const char* reference_chroma = planes->reference_chroma.data();
  const char* distorted_chroma = planes->distorted_chroma.data();
  v1::ScorePairRequest fields = PairFields();
  for (const grpc::ByteBuffer& buffer :
       {FrameRequestBuffer(3, planes), PairRequestBuffer(fields, planes)}) {
    std::vector<grpc::Slice> slices;
    ASSERT_TRUE(buffer.Dump(&slices).ok());
    int found = 0;
    for (const grpc::Slice& s : slices) {
      const char* begin = reinterpret_cast<const char*>(s.begin());
      found += begin == reference_chroma || begin == distorted_chroma;
    }
    EXPECT_EQ(found, 2) << "the chroma planes were copied";
  }
  std::weak_ptr<OutgoingPlanes> watch = planes;
  grpc::ByteBuffer buffer = FrameRequestBuffer(3, planes);
  planes.reset();
  EXPECT_FALSE(watch.expired());
  std::vector<grpc::Slice> slices;
  ASSERT_TRUE(buffer.Dump(&slices).ok());
  slices.clear();
  buffer.Clear();
  EXPECT_TRUE(watch.expired());
}

}  // namespace
}  // namespace ssimd
