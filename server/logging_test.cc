#include "server/logging.h"

#include <memory>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "spdlog/sinks/ostream_sink.h"
#include "spdlog/spdlog.h"

namespace ssimd {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::SizeIs;

class LoggingTest : public ::testing::Test {
 protected:
  void Configure(LogFormat format, const std::string& level = "info") {
    out_.str("");
    ASSERT_TRUE(ConfigureLogging({format, level},
                                 std::make_shared<spdlog::sinks::ostream_sink_mt>(out_))
                    .ok());
  }

  std::vector<std::string> Lines() {
    spdlog::default_logger()->flush();
    return absl::StrSplit(out_.str(), '\n', absl::SkipEmpty());
  }

  std::ostringstream out_;
};

constexpr char kJsonTime[] = R"(\{"time":"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z",)";

TEST_F(LoggingTest, TextLinesCarryFieldsAsKeyValuePairs) {
  Configure(LogFormat::kText);
  LogEvent(spdlog::level::info, "listening", {{"address", "0.0.0.0:50051"}, {"note", "two words"}});
  const auto lines = Lines();
  ASSERT_THAT(lines, SizeIs(1));
  EXPECT_TRUE(std::regex_match(
      lines[0], std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z info listening )"
                           R"(address=0\.0\.0\.0:50051 note="two words")")))
      << lines[0];
}

TEST_F(LoggingTest, JsonLinesEscapeEverythingAClientCanSend) {
  Configure(LogFormat::kJson);
  StreamLog stream("s-17", {{"title", "Big \"Buck\"\n\\Bunny\x01\xFF"}});
  stream.Warn("odd {} braces", {{"Rung", "1080p"}, {"msg", "clash"}});
  const auto lines = Lines();
  ASSERT_THAT(lines, SizeIs(1));
  const std::string expected_rest =
      R"("level":"warning","msg":"odd \{\} braces","stream":"s-17",)"
      R"("title":"Big \\"Buck\\"\\n\\\\Bunny\\u0001)" "\xEF\xBF\xBD" R"(",)"
      R"("rung":"1080p","field_msg":"clash"\})";
  EXPECT_TRUE(std::regex_match(lines[0], std::regex(kJsonTime + expected_rest))) << lines[0];
}

TEST_F(LoggingTest, PlainSpdlogCallsStayValidJsonToo) {
  Configure(LogFormat::kJson);
  spdlog::error("quote \" and tab \t from elsewhere");
  const auto lines = Lines();
  ASSERT_THAT(lines, SizeIs(1));
  EXPECT_TRUE(std::regex_match(
      lines[0], std::regex(kJsonTime + std::string(R"("level":"error",)"
                                                   R"("msg":"quote \\" and tab \\t from elsewhere"\})"))))
      << lines[0];
}

TEST_F(LoggingTest, StreamLinesCarryStreamIdAndLabels) {
  Configure(LogFormat::kText);
  StreamLog stream("s-3", {{"title", "tears_of_steel"}, {"rung", "720p"}});
  stream.Info("config accepted", {{"width", "1280"}});
  const auto lines = Lines();
  ASSERT_THAT(lines, SizeIs(1));
  EXPECT_THAT(lines[0],
              HasSubstr("config accepted stream=s-3 title=tears_of_steel rung=720p width=1280"));
}

TEST_F(LoggingTest, ClientLabelsNeverReplaceTheServersFields) {
  Configure(LogFormat::kJson);
  StreamLog stream("s-5", {{"method", "ScoreClip"}},
                   {{"status", "OK"}, {"frames", "999"}, {"error", "none"}, {"stream", "x"}});
  stream.Finished("INVALID_ARGUMENT", {{"frames", "3"}, {"error", "frame 3: bad"}});
  const auto lines = Lines();
  ASSERT_THAT(lines, SizeIs(1));
  EXPECT_THAT(lines[0], HasSubstr(R"("stream":"s-5","method":"ScoreClip",)"
                                  R"("status":"INVALID_ARGUMENT","frames":"3",)"
                                  R"("error":"frame 3: bad","label_status":"OK",)"
                                  R"("label_frames":"999","label_error":"none",)"
                                  R"("label_stream":"x"})"));
}

TEST_F(LoggingTest, EachFallbackCategoryIsLoggedOncePerStream) {
  Configure(LogFormat::kText);
  StreamLog stream("s-9", {{"title", "t"}});
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&stream] {
      for (int i = 0; i < 250; ++i) stream.Fallback("float_ssim", "gpu error: fault at frame");
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_TRUE(stream.Fallback("float_ssim", "gpu refused: 16-bit input"));
  EXPECT_FALSE(stream.Fallback("float_ssim", "gpu refused: 16-bit input"));
  stream.Finished("OK");

  const auto lines = Lines();
  ASSERT_THAT(lines, SizeIs(3));
  EXPECT_THAT(lines[0], HasSubstr("warning frames fall back to the CPU stream=s-9 title=t "
                                  "feature=float_ssim reason=device_error "
                                  "detail=\"gpu error: fault at frame\""));
  EXPECT_THAT(lines[1], HasSubstr("reason=context_refused"));
  EXPECT_THAT(lines[2], HasSubstr("info stream finished stream=s-9 title=t status=OK "
                                  "fallback_frames_context_refused=2 "
                                  "fallback_frames_device_error=1000"));
  // Another stream logs its own first fallback again.
  StreamLog other("s-10", {});
  EXPECT_TRUE(other.Fallback("ssim", "gpu error: fault at frame"));
}

TEST_F(LoggingTest, StartupNamesBackendAndDevices) {
  Configure(LogFormat::kJson);
  GpuDeviceInfo device{/*index=*/0, "AMD Instinct MI210", int64_t{64} << 30, "gfx90a"};
  LogStartup("gpu", {device}, "", {{"grpc_address", "0.0.0.0:50051"}});
  LogStartup("cpu", {}, "ssimd was built without GPU support");
  const auto lines = Lines();
  ASSERT_THAT(lines, SizeIs(2));
  EXPECT_THAT(lines[0], HasSubstr(R"("msg":"ssimd started","backend":"gpu","devices":"1",)"
                                  R"json("device_list":"0:AMD Instinct MI210 (gfx90a, 65536 MiB)",)json"
                                  R"("grpc_address":"0.0.0.0:50051"})"));
  EXPECT_THAT(lines[1], HasSubstr(R"("backend":"cpu","devices":"0",)"
                                  R"("cpu_reason":"ssimd was built without GPU support"})"));
}

TEST_F(LoggingTest, StartupSaysWhichDevicesTheBinaryHasNoCodeFor) {
  Configure(LogFormat::kJson);
  GpuDeviceInfo mi300{/*index=*/0, "AMD Instinct MI300X", int64_t{192} << 30,
                      "gfx942:sramecc+:xnack-"};
  GpuDeviceInfo unknown{/*index=*/1, "AMD Radeon RX 9070", int64_t{16} << 30, "gfx1201"};
  unknown.has_code = false;
  LogStartup("gpu", {mi300, unknown}, "");
  const auto lines = Lines();
  ASSERT_THAT(lines, SizeIs(1));
  EXPECT_THAT(lines[0], HasSubstr(R"json("device_list":"0:AMD Instinct MI300X )json"
                                  R"json((gfx942:sramecc+:xnack-, 196608 MiB); )json"
                                  R"json(1:AMD Radeon RX 9070 (gfx1201, 16384 MiB, )json"
                                  R"json(no code for it in this build: unused)")json"));
}

TEST_F(LoggingTest, RepeatedKeysKeepTheFirstValue) {
  Configure(LogFormat::kJson);
  StreamLog stream("s-1", {{"title", "t"}});
  stream.Finished("OK", {{"status", "OK"}, {"stream", "spoofed"}, {"Title", "other"}});
  const auto lines = Lines();
  ASSERT_THAT(lines, SizeIs(1));
  EXPECT_THAT(lines[0], HasSubstr(R"("msg":"stream finished","stream":"s-1","title":"t",)"
                                  R"("status":"OK"})"));
}

TEST_F(LoggingTest, LevelFiltersLines) {
  Configure(LogFormat::kText, "warn");
  LogEvent(spdlog::level::info, "hidden");
  LogEvent(spdlog::level::warn, "shown");
  const auto lines = Lines();
  ASSERT_THAT(lines, SizeIs(1));
  EXPECT_THAT(lines[0], HasSubstr("shown"));
  EXPECT_THAT(lines[0], Not(HasSubstr("hidden")));
}

TEST(LoggingOptionsTest, RefusesUnknownLevelAndFormat) {
  const absl::Status status = ConfigureLogging({LogFormat::kText, "verbose"});
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()), HasSubstr("\"verbose\""));
  EXPECT_TRUE(ConfigureLogging({LogFormat::kText, "off"}).ok());
  EXPECT_EQ(*ParseLogFormat("json"), LogFormat::kJson);
  EXPECT_EQ(*ParseLogFormat("text"), LogFormat::kText);
  EXPECT_EQ(ParseLogFormat("yaml").status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace ssimd
