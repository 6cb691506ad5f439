#include "client/json_report.h"

#include <cmath>
#include <cstdlib>
#include <limits>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace ssimd {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

ClipReport TwoFrames() {
  ClipReport report;
  for (int i = 0; i < 2; ++i) {
    v1::FrameResult frame;
    frame.set_index(i);
    (*frame.mutable_scores())["float_ssim"] = i == 0 ? 0.99663001298904419 : 0.1 + 0.2;
    (*frame.mutable_scores())["ssim"] = i == 0 ? std::numeric_limits<double>::infinity()
                                               : std::numeric_limits<double>::quiet_NaN();
    frame.set_backend("cpu");
    report.frames.push_back(frame);
  }
  v1::PooledScore& p = (*report.summary.mutable_pooled())["float_ssim"];
  p.set_min(0.25);
  p.set_max(0.75);
  p.set_mean(0.5);
  p.set_harmonic_mean(-0.0);
  v1::Percentile* q = p.add_percentiles();
  q->set_percentile(5);
  q->set_value(0.125);
  (*report.summary.mutable_frames_by_backend())["cpu"] = 2;
  return report;
}

TEST(JsonNumberTest, RoundTripsEveryDouble) {
  const NumberFormat max;
  for (double v : {0.1 + 0.2, 0.99663001298904419, 1e-300, 123456789.123456789, 1.0 - 0x1p-53}) {
    const std::string text = JsonNumber(v, max);
    EXPECT_EQ(std::strtod(text.c_str(), nullptr), v) << text;
  }
  EXPECT_EQ(JsonNumber(-0.0, max), "-0");
  EXPECT_EQ(JsonNumber(std::numeric_limits<double>::infinity(), max), "null");
  EXPECT_EQ(JsonNumber(-std::numeric_limits<double>::infinity(), max), "null");
  EXPECT_EQ(JsonNumber(std::nan(""), max), "null");
}

TEST(JsonNumberTest, PrecisionOptions) {
  EXPECT_EQ(JsonNumber(0.123456789, *ParsePrecision("legacy")), "0.123457");
  EXPECT_EQ(JsonNumber(0.123456789, *ParsePrecision("3")), "0.123");
  EXPECT_EQ(JsonNumber(0.1, *ParsePrecision("full")), "0.10000000000000001");
  EXPECT_FALSE(ParsePrecision("18").ok());
  EXPECT_FALSE(ParsePrecision("high").ok());
}

TEST(FormatJsonReportTest, LibvmafShape) {
  ReportInfo info;
  info.metrics = {"float_ssim", "ssim"};
  info.fps = 12.5;
  info.server = "127.0.0.1:1";
  const std::string json = FormatJsonReport(TwoFrames(), info, NumberFormat());
  EXPECT_THAT(json, HasSubstr("\"frameNum\": 0"));
  EXPECT_THAT(json, HasSubstr("\"frameNum\": 1"));
  EXPECT_THAT(json, HasSubstr("\"float_ssim\": 0.99663001298904419"));
  EXPECT_THAT(json, HasSubstr("\"float_ssim\": 0.30000000000000004"));
  EXPECT_THAT(json, HasSubstr("\"ssim\": null"));
  EXPECT_THAT(json, Not(HasSubstr("inf")));
  EXPECT_THAT(json, Not(HasSubstr("nan")));
  EXPECT_THAT(json, HasSubstr("\"pooled_metrics\": {\n    \"float_ssim\": {\n      \"min\": 0.25,\n"
                              "      \"max\": 0.75,\n      \"mean\": 0.5,\n"
                              "      \"harmonic_mean\": -0\n    }"));
  EXPECT_THAT(json, HasSubstr("\"aggregate_metrics\": {\n  },"));
  EXPECT_THAT(json, HasSubstr("\"frames_by_backend\": {\"cpu\": 2}"));

  // The clip's aggregates in libvmaf's order (y, cb, cr); -inf is null, as libvmaf writes it.
  ClipReport pooled = TwoFrames();
  (*pooled.summary.mutable_aggregate())["apsnr_y"] = 40.71023659889506;
  (*pooled.summary.mutable_aggregate())["apsnr_cb"] = -std::numeric_limits<double>::infinity();
  (*pooled.summary.mutable_aggregate())["apsnr_cr"] = -std::numeric_limits<double>::infinity();
  EXPECT_THAT(FormatJsonReport(pooled, info, NumberFormat()),
              HasSubstr("\"aggregate_metrics\": {\n    \"apsnr_y\": 40.710236598895058,\n"
                        "    \"apsnr_cb\": null,\n    \"apsnr_cr\": null\n  },"));
  EXPECT_THAT(json, HasSubstr("\"percentiles\": {\n      \"float_ssim\": {\"5\": 0.125}"));
}

TEST(FormatJsonReportTest, ParsesAsJsonWithEveryValueInPlace) {
  ReportInfo info;
  info.metrics = {"float_ssim", "ssim"};
  info.server = "host \"a\"\n\\b";  // a label a user chose: quotes and a newline survive
  const nlohmann::json json = nlohmann::json::parse(FormatJsonReport(TwoFrames(), info,
                                                                      NumberFormat()));
  ASSERT_EQ(json["frames"].size(), 2u);
  EXPECT_EQ(json["frames"][1]["frameNum"], 1);
  EXPECT_EQ(json["frames"][1]["metrics"]["float_ssim"].get<double>(), 0.1 + 0.2);
  EXPECT_TRUE(json["frames"][0]["metrics"]["ssim"].is_null());
  EXPECT_EQ(json["pooled_metrics"]["float_ssim"]["max"].get<double>(), 0.75);
  EXPECT_EQ(json["ssimd"]["server"], info.server);
  EXPECT_EQ(json["ssimd"]["frames_by_backend"]["cpu"], 2);
  EXPECT_EQ(json["ssimd"]["percentiles"]["float_ssim"]["5"].get<double>(), 0.125);
}

TEST(FormatTextReportTest, OneLinePerFrameAndPooledRows) {
  ReportInfo info;
  info.metrics = {"float_ssim"};
  const std::string text = FormatTextReport(TwoFrames(), info, NumberFormat());
  EXPECT_THAT(text, HasSubstr("0.99663001298904419"));
  EXPECT_THAT(text, HasSubstr("harmonic_mean"));
  EXPECT_THAT(text, HasSubstr("cpu"));
}

}  // namespace
}  // namespace ssimd
