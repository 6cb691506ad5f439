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

TEST(BareClientNameTest, PlainShortNamesStayAsGiven) {
  EXPECT_EQ(BareClientName("clips/720p.mp4"), "clips/720p.mp4");
  EXPECT_EQ(BareClientName("upload:0123456789abcdef0123456789abcdef.y4m"),
            "upload:0123456789abcdef0123456789abcdef.y4m");
  EXPECT_EQ(BareClientName("caf\xC3\xA9.y4m"), "caf\xC3\xA9.y4m");
  const std::string longest(kQuotedClientBytes, 'n');
  EXPECT_EQ(BareClientName(longest), longest);
}

TEST(BareClientNameTest, ControlBytesQuotesAndBackslashesAreEscaped) {
  EXPECT_EQ(BareClientName("a\nb\x1b[31m\"c\\.yuv"), "a\\x0ab\\x1b[31m\\\"c\\\\.yuv");
}

TEST(BareClientNameTest, LongNamesAreCutAndKeepTheirExtension) {
  const std::string hostile = "/etc/x\n\x1b[31m" + std::string(1200, 'A') + ".Y4M";
  const std::string name = BareClientName(hostile);
  EXPECT_EQ(name.size(), kQuotedClientBytes) << name;
  EXPECT_EQ(name.rfind("/etc/x\\x0a\\x1b[31mAAA", 0), 0u) << name;
  EXPECT_EQ(name.substr(name.size() - 7), "....Y4M") << name;
  EXPECT_EQ(name.find_first_of("\n\x1b"), std::string::npos) << name;
  // No extension to keep: a query, a long suffix, or a dot before the last slash.
  for (const std::string& tail : {std::string(".mp4?x"), std::string(".verylongext"),
                                  std::string(".d/file")}) {
    const std::string cut = BareClientName(std::string(100, 'b') + tail);
    EXPECT_EQ(cut, std::string(kQuotedClientBytes - 3, 'b') + "...") << tail;
  }
}

TEST(BareClientNameTest, CutsNeverSplitACharacterOrAnEscape) {
  // 48 - 3 - 4 = 41 bytes of room before "..." and ".mp4": a 2-byte character (or a 4-byte
  // escape) starting at byte 40 does not fit, and is left out whole.
  const std::string text = std::string(40, 'a') + "\xC3\xA9" + std::string(20, 'z') + ".mp4";
  EXPECT_EQ(BareClientName(text), std::string(40, 'a') + "....mp4");
  const std::string escapes = std::string(39, 'a') + "\x01" + std::string(20, 'z') + ".mp4";
  EXPECT_EQ(BareClientName(escapes), std::string(39, 'a') + "....mp4");
}

TEST(CapStatusMessageTest, OnlyLongMessagesAreCut) {
  EXPECT_EQ(CapStatusMessage("short"), "short");
  const std::string capped = CapStatusMessage(std::string(5000, 'm'));
  EXPECT_EQ(capped.size(), kMaxStatusMessageBytes);
  EXPECT_EQ(capped.substr(capped.size() - 3), "...");
}

}  // namespace
}  // namespace ssimd
