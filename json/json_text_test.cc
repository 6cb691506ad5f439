#include "json/json_text.h"

#include <cmath>
#include <limits>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace ssimd {
namespace {

TEST(JsonQuotedTest, EscapesQuotesBackslashesAndControlCharacters) {
  EXPECT_EQ(JsonQuoted("a\"b\\c\nd\te\r\x01"), R"("a\"b\\c\nd\te\r\u0001")");
  EXPECT_EQ(JsonQuoted(""), R"("")");
}

TEST(JsonQuotedTest, KeepsUtf8AndReplacesWhatIsNotUtf8) {
  EXPECT_EQ(JsonQuoted("caf\xC3\xA9"), "\"caf\xC3\xA9\"");
  EXPECT_EQ(JsonQuoted("a\xFF" "b"), "\"a\xEF\xBF\xBD" "b\"");
}

TEST(JsonQuotedTest, ParsesBackToTheSameText) {
  const std::string text = "title \"x\"\n\x1f/\\";
  EXPECT_EQ(nlohmann::json::parse(JsonQuoted(text)).get<std::string>(), text);
}

TEST(JsonRoundedTest, RoundsToSignificantDigitsAndNullsNonFinite) {
  EXPECT_EQ(JsonText(JsonRounded(1234.56789, 6)), "1234.57");
  EXPECT_EQ(JsonText(JsonRounded(0.1 + 0.2, 6)), "0.3");
  EXPECT_EQ(JsonText(JsonRounded(10, 6)), "10.0");
  EXPECT_TRUE(JsonRounded(std::nan(""), 6).is_null());
  EXPECT_TRUE(JsonRounded(std::numeric_limits<double>::infinity(), 6).is_null());
  EXPECT_TRUE(JsonRounded(-std::numeric_limits<double>::infinity(), 6).is_null());
}

TEST(JsonTextTest, KeepsInsertionOrderAndWritesNonFiniteAsNull) {
  nlohmann::ordered_json doc;
  doc["zeta"] = 1;
  doc["alpha"] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(JsonText(doc), R"({"zeta":1,"alpha":null})");
  EXPECT_EQ(JsonText(doc, 1), "{\n \"zeta\": 1,\n \"alpha\": null\n}");
}

}  // namespace
}  // namespace ssimd
