#include "engine/media/decode_error.h"

#include <iterator>
#include <set>
#include <string>

#include "gtest/gtest.h"

namespace ssimd {
namespace {

TEST(DecodeErrorTest, IsInvalidArgumentWithTheMessageAndTheKind) {
  const absl::Status status = DecodeError(DecodeErrorKind::kCorruptStream, "a.mp4: frame 3: bad");
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(), "a.mp4: frame 3: bad");
  EXPECT_EQ(DecodeErrorLabelOf(status), "corrupt_stream");
}

TEST(DecodeErrorTest, OtherStatusesHaveNoKind) {
  EXPECT_EQ(DecodeErrorLabelOf(absl::InvalidArgumentError("x")), std::nullopt);
  EXPECT_EQ(DecodeErrorLabelOf(absl::OkStatus()), std::nullopt);
  // An OK status cannot carry a kind.
  EXPECT_EQ(DecodeErrorLabelOf(WithDecodeErrorKind(absl::OkStatus(), DecodeErrorKind::kNotMedia)),
            std::nullopt);
}

TEST(DecodeErrorTest, EveryKindHasItsOwnLabel) {
  const DecodeErrorKind kinds[] = {
      DecodeErrorKind::kNotMedia,          DecodeErrorKind::kTruncated,
      DecodeErrorKind::kNoVideoStream,     DecodeErrorKind::kUnsupportedCodec,
      DecodeErrorKind::kUnsupportedFormat, DecodeErrorKind::kOverLimits,
      DecodeErrorKind::kCorruptStream,     DecodeErrorKind::kStreamChange,
  };
  std::set<std::string> labels;
  for (DecodeErrorKind kind : kinds) labels.insert(std::string(DecodeErrorLabel(kind)));
  EXPECT_EQ(labels.size(), std::size(kinds));
  EXPECT_EQ(labels.count("unknown"), 0u);
}

}  // namespace
}  // namespace ssimd
