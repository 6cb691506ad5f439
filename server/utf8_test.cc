#include "server/utf8.h"

#include <string>

#include "gtest/gtest.h"

namespace ssimd {
namespace {

const std::string kReplacement = "\xEF\xBF\xBD";

TEST(ValidUtf8Test, KeepsWellFormedText) {
  const std::string text = "Big Buck Bunny \xC3\xA9t\xC3\xA9 \xE6\x98\xA0\xE7\x94\xBB \xF0\x9F\x8E\xAC";
  EXPECT_EQ(ValidUtf8(text), text);
}

TEST(ValidUtf8Test, ReplacesEachMalformedSequence) {
  EXPECT_EQ(ValidUtf8("a\xFF" "b"), "a" + kReplacement + "b");
  EXPECT_EQ(ValidUtf8("\xC0\xAF"), kReplacement + kReplacement);  // overlong '/'
  EXPECT_EQ(ValidUtf8("\xED\xA0\x80"), kReplacement + kReplacement + kReplacement);  // surrogate
  EXPECT_EQ(ValidUtf8("\xF4\x90\x80\x80").size(), 4 * kReplacement.size());  // above U+10FFFF
  EXPECT_EQ(ValidUtf8("x\xE6\x98"), "x" + kReplacement + kReplacement);  // truncated sequence
}

TEST(ValidUtf8Test, CutsAtCharacterBoundary) {
  const std::string text = "ab\xE6\x98\xA0";  // 2 + 3 bytes
  EXPECT_EQ(ValidUtf8(text, 4), "ab");
  EXPECT_EQ(ValidUtf8(text, 5), text);
  EXPECT_EQ(ValidUtf8(text, 0), "");
}

}  // namespace
}  // namespace ssimd
