// Split points in hand-made packets: NAL framing (start codes, 1/2/4-byte lengths), the first
// slice deciding, broken framing never a split point, VP9 frame headers of every profile. Real
// encodes are checked end to end in segmented_decoding_test.
#include "engine/media/split_points.h"

#include <cstdint>
#include <vector>

#include "gtest/gtest.h"

namespace ssimd {
namespace {

using Bytes = std::vector<uint8_t>;

// NAL units with 4-byte start codes (Annex-B).
Bytes AnnexB(const std::vector<Bytes>& units, bool three_byte_codes = false) {
  Bytes out;
  for (const Bytes& u : units) {
    if (!three_byte_codes) out.push_back(0);
    out.insert(out.end(), {0, 0, 1});
    out.insert(out.end(), u.begin(), u.end());
  }
  return out;
}

// NAL units each preceded by its length in `length_size` bytes (avcC, hvcC).
Bytes LengthPrefixed(const std::vector<Bytes>& units, int length_size) {
  Bytes out;
  for (const Bytes& u : units) {
    for (int i = length_size - 1; i >= 0; --i) out.push_back((u.size() >> (8 * i)) & 0xff);
    out.insert(out.end(), u.begin(), u.end());
  }
  return out;
}

bool Split(AVCodecID codec, const Bytes& packet, int length_size) {
  return IsSplitPoint(codec, packet.data(), packet.size(), length_size);
}

// H.264 units: header byte (nal_ref_idc 3, type), then payload bytes without start-code patterns.
Bytes H264(int type) { return {static_cast<uint8_t>(0x60 | type), 0x88, 0x84, 0x21}; }
// HEVC units: two header bytes (type in bits 1..6 of the first, layer 0, temporal id 1), then a
// slice header starting first_slice_segment_in_pic_flag = 1, no_output_of_prior_pics_flag = 0.
Bytes Hevc(int type) { return {static_cast<uint8_t>(type << 1), 0x01, 0xaf, 0x12}; }

TEST(SplitPointsTest, H264IdrAccessUnitsInEveryFraming) {
  const std::vector<Bytes> idr = {H264(9), H264(7), H264(8), H264(6), H264(5), H264(5)};
  const std::vector<Bytes> inter = {H264(9), H264(1), H264(1)};
  EXPECT_TRUE(Split(AV_CODEC_ID_H264, AnnexB(idr), 0));
  EXPECT_TRUE(Split(AV_CODEC_ID_H264, AnnexB(idr, true), 0));
  EXPECT_FALSE(Split(AV_CODEC_ID_H264, AnnexB(inter), 0));
  for (int length_size : {1, 2, 4}) {
    SCOPED_TRACE(length_size);
    EXPECT_TRUE(Split(AV_CODEC_ID_H264, LengthPrefixed(idr, length_size), length_size));
    EXPECT_FALSE(Split(AV_CODEC_ID_H264, LengthPrefixed(inter, length_size), length_size));
  }
  // An I slice that is not IDR (a recovery point, open GOP) is not a split point.
  EXPECT_FALSE(Split(AV_CODEC_ID_H264, AnnexB({H264(6), H264(1)}), 0));
  // The first slice decides (a non-IDR slice before IDR data is malformed anyway).
  EXPECT_FALSE(Split(AV_CODEC_ID_H264, AnnexB({H264(1), H264(5)}), 0));
}

TEST(SplitPointsTest, HevcIdrButNotCra) {
  const int kVps = 32, kSps = 33, kPps = 34, kSei = 39, kTrail = 1, kCra = 21, kBla = 16;
  for (int idr : {19, 20}) {
    EXPECT_TRUE(
        Split(AV_CODEC_ID_HEVC, AnnexB({Hevc(kVps), Hevc(kSps), Hevc(kPps), Hevc(idr)}), 0));
    EXPECT_TRUE(Split(AV_CODEC_ID_HEVC, LengthPrefixed({Hevc(kSei), Hevc(idr)}, 4), 4));
  }
  // An IDR that drops the pictures still waiting (no_output_of_prior_pics_flag) is not one.
  Bytes dropping = Hevc(19);
  dropping[2] = 0xc0 | (dropping[2] & 0x3f);
  EXPECT_FALSE(Split(AV_CODEC_ID_HEVC, AnnexB({Hevc(kVps), dropping}), 0));
  EXPECT_FALSE(Split(AV_CODEC_ID_HEVC, AnnexB({Bytes{19 << 1, 0x01}}), 0));  // no slice header
  EXPECT_FALSE(Split(AV_CODEC_ID_HEVC, AnnexB({Hevc(kVps), Hevc(kCra)}), 0));
  EXPECT_FALSE(Split(AV_CODEC_ID_HEVC, AnnexB({Hevc(kBla)}), 0));
  EXPECT_FALSE(Split(AV_CODEC_ID_HEVC, LengthPrefixed({Hevc(kTrail)}, 4), 4));
}

TEST(SplitPointsTest, BrokenFramingIsNeverASplitPoint) {
  Bytes idr = LengthPrefixed({H264(5)}, 4);
  Bytes cut(idr.begin(), idr.end() - 1);  // the length runs past the packet
  EXPECT_FALSE(Split(AV_CODEC_ID_H264, cut, 4));
  EXPECT_FALSE(Split(AV_CODEC_ID_H264, Bytes{0, 0, 0, 0, 0x65}, 4));  // a zero length
  EXPECT_FALSE(Split(AV_CODEC_ID_H264, idr, 3));                     // no such length size
  EXPECT_FALSE(Split(AV_CODEC_ID_H264, Bytes{}, 4));
  EXPECT_FALSE(IsSplitPoint(AV_CODEC_ID_H264, nullptr, 10, 4));
  EXPECT_FALSE(Split(AV_CODEC_ID_H264, AnnexB({{0xe5, 1, 2}}), 0));  // forbidden bit set
  EXPECT_FALSE(Split(AV_CODEC_ID_H264, Bytes{0x65, 0x88, 0x84}, 0));  // no start code at all
}

TEST(SplitPointsTest, Vp9KeyFramesOfEveryProfile) {
  // frame_marker 10, profile bits (low, high), [reserved 0 in profile 3], show_existing, type.
  EXPECT_TRUE(Split(AV_CODEC_ID_VP9, Bytes{0b10000000, 0x49}, 0));   // profile 0 key
  EXPECT_FALSE(Split(AV_CODEC_ID_VP9, Bytes{0b10000100, 0x49}, 0));  // profile 0 inter
  EXPECT_FALSE(Split(AV_CODEC_ID_VP9, Bytes{0b10001000, 0x49}, 0));  // show existing
  EXPECT_TRUE(Split(AV_CODEC_ID_VP9, Bytes{0b10100000, 0x49}, 0));   // profile 1 key
  EXPECT_TRUE(Split(AV_CODEC_ID_VP9, Bytes{0b10010000, 0x49}, 0));   // profile 2 key
  EXPECT_TRUE(Split(AV_CODEC_ID_VP9, Bytes{0b10110000, 0x49}, 0));   // profile 3 key
  EXPECT_FALSE(Split(AV_CODEC_ID_VP9, Bytes{0b10110010, 0x49}, 0));  // profile 3 inter
  EXPECT_FALSE(Split(AV_CODEC_ID_VP9, Bytes{0b10110100, 0x49}, 0));  // profile 3 show existing
  EXPECT_FALSE(Split(AV_CODEC_ID_VP9, Bytes{0b01000000, 0x49}, 0));  // no frame marker
}

TEST(SplitPointsTest, OtherCodecsHaveNone) {
  EXPECT_FALSE(Split(AV_CODEC_ID_AV1, Bytes{0x12, 0x00, 0x0a}, 0));
  EXPECT_FALSE(Split(AV_CODEC_ID_MPEG2VIDEO, AnnexB({{0xb3, 1, 2}}), 0));
}

TEST(SplitPointsTest, LengthSizeFromExtradata) {
  const Bytes avcc = {1, 0x64, 0, 0x1f, 0xff, 0xe1, 0};
  EXPECT_EQ(NalLengthSize(AV_CODEC_ID_H264, avcc.data(), avcc.size()), 4);
  Bytes avcc2 = avcc;
  avcc2[4] = 0xfd;
  EXPECT_EQ(NalLengthSize(AV_CODEC_ID_H264, avcc2.data(), avcc2.size()), 2);
  Bytes hvcc(23, 0);
  hvcc[0] = 1;
  hvcc[21] = 0x0f;
  EXPECT_EQ(NalLengthSize(AV_CODEC_ID_HEVC, hvcc.data(), hvcc.size()), 4);
  const Bytes annexb = {0, 0, 0, 1, 0x67};
  EXPECT_EQ(NalLengthSize(AV_CODEC_ID_H264, annexb.data(), annexb.size()), 0);
  EXPECT_EQ(NalLengthSize(AV_CODEC_ID_HEVC, hvcc.data(), 22), 0);
  EXPECT_EQ(NalLengthSize(AV_CODEC_ID_H264, nullptr, 0), 0);
}

}  // namespace
}  // namespace ssimd
