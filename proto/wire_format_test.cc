#include "proto/wire_format.h"

#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "absl/types/span.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/wire_format_lite.h"
#include "gtest/gtest.h"
#include "proto/wire_fields.h"

namespace ssimd::wire {
namespace {

using google::protobuf::internal::WireFormatLite;
using google::protobuf::io::CodedOutputStream;

struct DecodedVarint {
  uint64_t value = 0;
  size_t size = 0;  // bytes it took
};

// The varint at the start of `bytes` through VarintDecoder, as the server feeds it; nullopt when
// `bytes` ends inside it or it runs past 10 bytes.
std::optional<DecodedVarint> DecodeVarint(absl::Span<const uint8_t> bytes) {
  VarintDecoder decoder;
  for (size_t i = 0; i < bytes.size(); ++i) {
    switch (decoder.Feed(bytes[i])) {
      case VarintDecoder::Step::kMore:
        break;
      case VarintDecoder::Step::kDone:
        return DecodedVarint{decoder.value(), i + 1};
      case VarintDecoder::Step::kTooLong:
        return std::nullopt;
    }
  }
  return std::nullopt;
}

// Sizes are compile-time constants, so the client can size headers without running code.
static_assert(VarintSize(0) == 1);
static_assert(VarintSize(127) == 1);
static_assert(VarintSize(128) == 2);
static_assert(VarintSize(std::numeric_limits<uint64_t>::max()) == kMaxVarintBytes);
static_assert(VarintSize(kMaxDelimitedLength) == 5);

const std::vector<uint64_t> kBoundaries = {
    0,
    1,
    127,
    128,
    16383,
    16384,
    (uint64_t{1} << 32) - 1,
    uint64_t{1} << 32,
    (uint64_t{1} << 63) - 1,
    uint64_t{1} << 63,
    std::numeric_limits<uint64_t>::max(),
};

// What protobuf's own writer makes of `value`.
std::string ProtobufVarint(uint64_t value) {
  std::string out;
  {
    google::protobuf::io::StringOutputStream stream(&out);
    CodedOutputStream coded(&stream);
    coded.WriteVarint64(value);
  }
  return out;
}

absl::Span<const uint8_t> Bytes(const std::string& s) {
  return absl::Span<const uint8_t>(reinterpret_cast<const uint8_t*>(s.data()), s.size());
}

TEST(WireFormatTest, VarintsAreWhatProtobufWritesAndReadBack) {
  for (uint64_t value : kBoundaries) {
    std::string bytes;
    PutVarint(value, &bytes);
    EXPECT_EQ(bytes, ProtobufVarint(value)) << value;
    EXPECT_EQ(VarintSize(value), bytes.size()) << value;
    EXPECT_EQ(VarintSize(value), CodedOutputStream::VarintSize64(value)) << value;
    // What follows the varint is not read.
    const std::string followed = bytes + "\x01\x02";
    const std::optional<DecodedVarint> decoded = DecodeVarint(Bytes(followed));
    ASSERT_TRUE(decoded.has_value()) << value;
    EXPECT_EQ(decoded->value, value);
    EXPECT_EQ(decoded->size, bytes.size()) << value;
  }
}

TEST(WireFormatTest, VarintBoundariesByteForByte) {
  auto put = [](uint64_t value) {
    std::string out;
    PutVarint(value, &out);
    return out;
  };
  EXPECT_EQ(put(0), std::string(1, '\0'));
  EXPECT_EQ(put(127), "\x7f");
  EXPECT_EQ(put(128), "\x80\x01");
  EXPECT_EQ(put(uint64_t{1} << 32), "\x80\x80\x80\x80\x10");
  EXPECT_EQ(put(std::numeric_limits<uint64_t>::max()), std::string(9, '\xff') + "\x01");
}

TEST(WireFormatTest, TruncatedVarintsAreRejected) {
  EXPECT_FALSE(DecodeVarint({}).has_value());
  for (uint64_t value : kBoundaries) {
    std::string bytes;
    PutVarint(value, &bytes);
    for (size_t cut = 0; cut < bytes.size(); ++cut) {
      EXPECT_FALSE(DecodeVarint(Bytes(bytes.substr(0, cut))).has_value())
          << value << " cut to " << cut << " bytes";
    }
  }
}

TEST(WireFormatTest, VarintsPastTenBytesAreRejected) {
  // Ten bytes that all continue: an eleventh would be needed, which no 64-bit value takes.
  EXPECT_FALSE(DecodeVarint(Bytes(std::string(10, '\x80') + '\0')).has_value());
  EXPECT_FALSE(DecodeVarint(Bytes(std::string(11, '\xff') + '\x01')).has_value());
  // Ten bytes that end are read, padding included (a value written wider than it needs).
  const std::optional<DecodedVarint> padded = DecodeVarint(Bytes(std::string(9, '\x80') + '\0'));
  ASSERT_TRUE(padded.has_value());
  EXPECT_EQ(padded->value, 0u);
  EXPECT_EQ(padded->size, 10u);
}

TEST(WireFormatTest, TheByteDecoderReadsWhatTheSpanDecoderReads) {
  for (uint64_t value : kBoundaries) {
    std::string bytes;
    PutVarint(value, &bytes);
    VarintDecoder decoder;
    for (size_t i = 0; i + 1 < bytes.size(); ++i) {
      ASSERT_EQ(decoder.Feed(static_cast<uint8_t>(bytes[i])), VarintDecoder::Step::kMore);
    }
    ASSERT_EQ(decoder.Feed(static_cast<uint8_t>(bytes.back())), VarintDecoder::Step::kDone);
    EXPECT_EQ(decoder.value(), value);
  }
  VarintDecoder too_long;
  for (size_t i = 0; i + 1 < kMaxVarintBytes; ++i) {
    ASSERT_EQ(too_long.Feed(0x80), VarintDecoder::Step::kMore);
  }
  EXPECT_EQ(too_long.Feed(0x80), VarintDecoder::Step::kTooLong);
}

constexpr WireType kAllTypes[] = {WireType::kVarint,          WireType::kFixed64,
                                  WireType::kLengthDelimited, WireType::kStartGroup,
                                  WireType::kEndGroup,        WireType::kFixed32};

TEST(WireFormatTest, TagsAreWhatProtobufWritesAndReadBack) {
  for (uint32_t field :
       {uint32_t{1}, uint32_t{15}, uint32_t{16}, uint32_t{2047}, uint32_t{2048}, kMaxFieldNumber}) {
    for (WireType type : kAllTypes) {
      const uint32_t protobuf_tag = WireFormatLite::MakeTag(
          static_cast<int>(field), static_cast<WireFormatLite::WireType>(type));
      EXPECT_EQ(Tag(field, type), protobuf_tag);
      std::string bytes;
      PutTag(field, type, &bytes);
      EXPECT_EQ(bytes, ProtobufVarint(protobuf_tag));
      EXPECT_EQ(TagSize(field), bytes.size()) << field;
      const std::optional<DecodedTag> decoded = DecodeTag(Tag(field, type));
      ASSERT_TRUE(decoded.has_value()) << field;
      EXPECT_EQ(decoded->field, field);
      EXPECT_EQ(decoded->type, type);
    }
  }
  EXPECT_EQ(Tag(1, WireType::kVarint), 0x08u);
  EXPECT_EQ(Tag(2, WireType::kLengthDelimited), 0x12u);
}

TEST(WireFormatTest, TagsWithFieldZeroOrABadWireTypeAreRejected) {
  for (uint64_t type = 0; type < 8; ++type) {
    EXPECT_FALSE(DecodeTag(type).has_value()) << "field 0, wire type " << type;
  }
  for (uint64_t field : {uint64_t{1}, uint64_t{kMaxFieldNumber}}) {
    EXPECT_FALSE(DecodeTag((field << 3) | 6).has_value()) << field;
    EXPECT_FALSE(DecodeTag((field << 3) | 7).has_value()) << field;
  }
  EXPECT_FALSE(DecodeTag(Tag(kMaxFieldNumber, WireType::kVarint) + 8).has_value());
  EXPECT_FALSE(DecodeTag(std::numeric_limits<uint64_t>::max() - 7).has_value());
}

TEST(WireFormatTest, DelimitedFieldSizesAreProtobufs) {
  for (size_t length : {size_t{0}, size_t{1}, size_t{127}, size_t{128}, size_t{16384}}) {
    v1::FramePair frame;
    frame.set_reference_luma(std::string(length, 'x'));
    // proto3 leaves an empty field out; the size here counts it as written.
    const size_t expected = length == 0 ? TagSize(kFrameReferenceField) + 1 : frame.ByteSizeLong();
    EXPECT_EQ(DelimitedFieldSize(kFrameReferenceField, length), expected) << length;
  }
}

TEST(WireFormatTest, FieldNumbersAreTheGeneratedOnes) {
  v1::ScoreClipRequest request;
  request.mutable_frame()->set_index(5);
  const std::string bytes = request.SerializeAsString();
  const std::optional<DecodedVarint> tag = DecodeVarint(Bytes(bytes));
  ASSERT_TRUE(tag.has_value());
  EXPECT_EQ(tag->value, Tag(kClipFrameField, WireType::kLengthDelimited));
  const std::optional<DecodedVarint> index_tag =
      DecodeVarint(Bytes(bytes).subspan(tag->size + 1));  // past the frame's 1-byte length
  ASSERT_TRUE(index_tag.has_value());
  EXPECT_EQ(index_tag->value, Tag(kFrameIndexField, WireType::kVarint));
}

}  // namespace
}  // namespace ssimd::wire
