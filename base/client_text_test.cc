#include "base/client_text.h"

#include <string>

#include "gtest/gtest.h"

namespace ssimd {
namespace {

TEST(QuoteClientTextTest, ShortTextIsQuotedWhole) {
  EXPECT_EQ(QuoteClientText("float_ssim"), "\"float_ssim\"");
  EXPECT_EQ(QuoteClientText(""), "\"\"");
}

TEST(QuoteClientTextTest, QuotesBackslashesAndControlBytesAreEscaped) {
  EXPECT_EQ(QuoteClientText("a\"b\\c\n\x01"), "\"a\\\"b\\\\c\\x0a\\x01\"");
}

TEST(QuoteClientTextTest, LongTextIsCutAndItsLengthGiven) {
  const std::string huge(100000, 'x');
  const std::string quoted = QuoteClientText(huge);
  EXPECT_EQ(quoted, "\"" + std::string(kQuotedClientBytes, 'x') + "\"... (100000 bytes)");
}

TEST(QuoteClientTextTest, CutNeverSplitsAUtf8Character) {
  // 47 ASCII bytes, then a 3-byte character that straddles the 48-byte cut.
  const std::string text = std::string(47, 'a') + "\xE2\x82\xAC" + "tail";
  const std::string quoted = QuoteClientText(text);
  EXPECT_EQ(quoted, "\"" + std::string(47, 'a') + "\"... (54 bytes)");
}

TEST(CapStatusMessageTest, OnlyLongMessagesAreCut) {
  EXPECT_EQ(CapStatusMessage("short"), "short");
  const std::string capped = CapStatusMessage(std::string(5000, 'm'));
  EXPECT_EQ(capped.size(), kMaxStatusMessageBytes);
  EXPECT_EQ(capped.substr(capped.size() - 3), "...");
}

}  // namespace
}  // namespace ssimd
