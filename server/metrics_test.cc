#include "server/metrics.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/time/time.h"
#include "engine/media/picture_memory_budget.h"
#include "server/service_context.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "engine/media/decode_error.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace ssimd {
namespace {

using ::testing::Contains;
using ::testing::IsEmpty;
using ::testing::Not;

// One sample line of the text exposition format: name{k="v",...} value.
struct Sample {
  std::string name;
  std::map<std::string, std::string> labels;
  double value = 0;
};

struct Exposition {
  std::map<std::string, std::string> types;  // family name -> counter, gauge, histogram, ...
  std::vector<Sample> samples;

  std::vector<Sample> Find(const std::string& name,
                           const std::map<std::string, std::string>& labels = {}) const {
    std::vector<Sample> out;
    for (const Sample& s : samples) {
      if (s.name != name) continue;
      bool match = true;
      for (const auto& [k, v] : labels) {
        auto it = s.labels.find(k);
        match = match && it != s.labels.end() && it->second == v;
      }
      if (match) out.push_back(s);
    }
    return out;
  }

  // The single sample matching, or NaN (and a test failure) when there is not exactly one.
  double Value(const std::string& name, const std::map<std::string, std::string>& labels = {}) const {
    const auto found = Find(name, labels);
    EXPECT_EQ(found.size(), 1u) << name;
    return found.size() == 1 ? found[0].value : std::nan("");
  }
};

// Parses what prometheus-cpp writes (label values without escaped quotes, as in these tests).
Exposition Parse(const std::string& text) {
  Exposition out;
  for (absl::string_view line : absl::StrSplit(text, '\n', absl::SkipEmpty())) {
    if (absl::StartsWith(line, "# TYPE ")) {
      std::vector<std::string> parts = absl::StrSplit(line, ' ');
      out.types[parts[2]] = parts[3];
      continue;
    }
    if (absl::StartsWith(line, "#")) continue;
    Sample sample;
    const size_t brace = line.find('{');
    const size_t space = line.rfind(' ');
    if (brace != absl::string_view::npos) {
      sample.name = std::string(line.substr(0, brace));
      const size_t close = line.rfind('}');
      for (absl::string_view pair :
           absl::StrSplit(line.substr(brace + 1, close - brace - 1), "\",", absl::SkipEmpty())) {
        std::vector<std::string> kv = absl::StrSplit(pair, absl::MaxSplits("=\"", 1));
        if (kv.size() == 2) {
          if (absl::EndsWith(kv[1], "\"")) kv[1].pop_back();
          sample.labels[kv[0]] = kv[1];
        }
      }
    } else {
      sample.name = std::string(line.substr(0, space));
    }
    std::string value(line.substr(space + 1));
    if (value == "+Inf") {
      sample.value = std::numeric_limits<double>::infinity();
    } else if (value == "NaN") {
      sample.value = std::nan("");
    } else {
      EXPECT_TRUE(absl::SimpleAtod(value, &sample.value)) << line;
    }
    out.samples.push_back(sample);
  }
  return out;
}

FeatureSet FloatSsim(bool enable_db = false) {
  FeatureSet features;
  features.float_ssim = FloatSsimOptions{};
  features.float_ssim->enable_db = enable_db;
  return features;
}

ScoreResult GpuResult(int device) {
  ScoreResult result;
  result.backend = absl::StrCat("gpu:", device);
  result.scores = {{"float_ssim", 0.987}};
  result.timings = {0.0001, 0.0004, 0.0002, 0.0003, 0.00005, 0.00105};
  return result;
}

ScoreResult CpuFallbackResult(const std::string& reason) {
  ScoreResult result;
  result.backend = "cpu";
  result.fallback_reason = reason;
  result.scores = {{"float_ssim", 0.95}};
  result.timings = {0.001, 0, 0.02, 0, 0.0001, 0.0211};
  return result;
}

TEST(ServiceMetricsTest, FamiliesFollowPrometheusNaming) {
  ServiceMetrics metrics;
  metrics.RecordFrame(FloatSsim(), GpuResult(0));
  metrics.RecordFrame(FloatSsim(), CpuFallbackResult("gpu refused: too big"));
  metrics.RecordRpc("ScoreClip", "OK");
  metrics.RecordTitleScore("t", "float_ssim", 0.9);
  metrics.UpdateDevices({DeviceStats{}});
  const Exposition e = Parse(metrics.Serialize());

  ASSERT_THAT(e.types, Not(IsEmpty()));
  for (const auto& [name, type] : e.types) {
    SCOPED_TRACE(name);
    EXPECT_TRUE(absl::StartsWith(name, "ssimd_"));
    EXPECT_EQ(absl::EndsWith(name, "_total"), type == "counter");
    if (type == "histogram" && name != "ssimd_frame_score" &&
        name != "ssimd_frame_score_decibels") {
      EXPECT_TRUE(absl::EndsWith(name, "_seconds"));
    }
  }
  const std::map<std::string, std::string> expected = {
      {"ssimd_frame_stage_seconds", "histogram"},
      {"ssimd_frame_seconds", "histogram"},
      {"ssimd_frames_scored_total", "counter"},
      {"ssimd_fallbacks_total", "counter"},
      {"ssimd_rpcs_total", "counter"},
      {"ssimd_active_streams", "gauge"},
      {"ssimd_frames_in_flight", "gauge"},
      {"ssimd_devices", "gauge"},
      {"ssimd_device_slots_in_use", "gauge"},
      {"ssimd_device_memory_used_bytes", "gauge"},
      {"ssimd_title_score", "gauge"},
      {"ssimd_title_evictions_total", "counter"},
      {"ssimd_frame_score", "histogram"},
  };
  for (const auto& [name, type] : expected) {
    auto it = e.types.find(name);
    ASSERT_NE(it, e.types.end()) << name;
    EXPECT_EQ(it->second, type) << name;
  }
}

TEST(ServiceMetricsTest, FramesAreCountedByFeatureSetAndBackendWithDeviceSeparate) {
  ServiceMetrics metrics;
  metrics.RecordFrame(FloatSsim(), GpuResult(0));
  metrics.RecordFrame(FloatSsim(), GpuResult(1));
  metrics.RecordFrame(FloatSsim(), GpuResult(1));
  FeatureSet both = FloatSsim();
  both.ssim = IntegerSsimOptions{};
  metrics.RecordFrame(both, CpuFallbackResult("gpu unavailable: no device"));
  const Exposition e = Parse(metrics.Serialize());

  EXPECT_EQ(e.Value("ssimd_frames_scored_total", {{"feature", "float_ssim"}, {"backend", "gpu"}}),
            3);
  EXPECT_EQ(e.Value("ssimd_frames_scored_total",
                    {{"feature", "float_ssim+ssim"}, {"backend", "cpu"}}),
            1);
  EXPECT_EQ(e.Value("ssimd_device_frames_total", {{"device", "1"}}), 2);
  EXPECT_EQ(e.Value("ssimd_device_frames_total", {{"device", "0"}}), 1);
  // The device index never becomes part of the backend label.
  for (const Sample& s : e.Find("ssimd_frames_scored_total")) {
    EXPECT_THAT((std::set<std::string>{"cpu", "gpu"}), Contains(s.labels.at("backend")));
  }
}

TEST(ServiceMetricsTest, FallbacksAreCountedByReasonCategory) {
  ServiceMetrics metrics;
  for (int i = 0; i < 3; ++i) {
    metrics.RecordFrame(FloatSsim(), CpuFallbackResult(absl::StrCat("gpu error: fault ", i)));
  }
  metrics.RecordFrame(FloatSsim(), CpuFallbackResult("gpu refused: 16-bit"));
  metrics.RecordFrame(FloatSsim(), GpuResult(0));
  const Exposition e = Parse(metrics.Serialize());

  EXPECT_EQ(e.Value("ssimd_fallbacks_total", {{"feature", "float_ssim"}, {"reason", "device_error"}}),
            3);
  EXPECT_EQ(
      e.Value("ssimd_fallbacks_total", {{"feature", "float_ssim"}, {"reason", "context_refused"}}),
      1);
  // Three distinct free-text reasons, still one series.
  EXPECT_EQ(e.Find("ssimd_fallbacks_total").size(), 2u);
}

TEST(ServiceMetricsTest, StageHistogramsCoverEachStageOfTheBackend) {
  ServiceMetrics metrics;
  metrics.RecordFrame(FloatSsim(), GpuResult(0));
  metrics.RecordFrame(FloatSsim(), CpuFallbackResult("gpu unavailable"));
  const Exposition e = Parse(metrics.Serialize());

  std::set<std::string> gpu_stages;
  std::set<std::string> cpu_stages;
  for (const Sample& s : e.Find("ssimd_frame_stage_seconds_count")) {
    EXPECT_EQ(s.value, 1);
    EXPECT_EQ(s.labels.at("feature"), "float_ssim");
    (s.labels.at("backend") == "gpu" ? gpu_stages : cpu_stages).insert(s.labels.at("stage"));
  }
  EXPECT_EQ(gpu_stages,
            (std::set<std::string>{"queue_wait", "upload", "compute", "readback", "host_finish"}));
  EXPECT_EQ(cpu_stages, (std::set<std::string>{"queue_wait", "compute", "host_finish"}));
  EXPECT_DOUBLE_EQ(
      e.Value("ssimd_frame_stage_seconds_sum", {{"stage", "upload"}, {"backend", "gpu"}}), 0.0004);
  EXPECT_DOUBLE_EQ(e.Value("ssimd_frame_seconds_sum", {{"backend", "cpu"}}), 0.0211);
  // Buckets are cumulative: a 1.05 ms frame is under 2.5 ms but not under 1 ms.
  EXPECT_EQ(e.Value("ssimd_frame_seconds_bucket", {{"backend", "gpu"}, {"le", "0.001"}}), 0);
  EXPECT_EQ(e.Value("ssimd_frame_seconds_bucket", {{"backend", "gpu"}, {"le", "0.0025"}}), 1);
  EXPECT_EQ(e.Value("ssimd_frame_seconds_bucket", {{"backend", "gpu"}, {"le", "+Inf"}}), 1);
}

TEST(ServiceMetricsTest, ScoreHistogramsSeparateDecibelsAndSkipNonFinite) {
  ServiceMetrics metrics;
  ScoreResult linear = GpuResult(0);
  linear.scores = {{"float_ssim", 0.97}, {"float_ssim_l", 0.999}, {"ssim", 0.5}};
  FeatureSet both = FloatSsim();
  both.ssim = IntegerSsimOptions{};
  metrics.RecordFrame(both, linear);
  ScoreResult db = GpuResult(0);
  db.scores = {{"float_ssim", 23.5}, {"float_ssim_l", 0.9}};
  metrics.RecordFrame(FloatSsim(/*enable_db=*/true), db);
  ScoreResult odd = GpuResult(0);
  odd.scores = {{"float_ssim", std::numeric_limits<double>::infinity()},
                {"ssim", std::nan("")},
                {"not_a_feature", 0.5}};
  metrics.RecordFrame(both, odd);
  const Exposition e = Parse(metrics.Serialize());

  EXPECT_EQ(e.Value("ssimd_frame_score_count", {{"feature", "float_ssim"}}), 1);
  EXPECT_EQ(e.Value("ssimd_frame_score_count", {{"feature", "float_ssim_l"}}), 2);
  EXPECT_EQ(e.Value("ssimd_frame_score_count", {{"feature", "ssim"}}), 1);
  EXPECT_EQ(e.Value("ssimd_frame_score_decibels_count", {{"feature", "float_ssim"}}), 1);
  EXPECT_DOUBLE_EQ(e.Value("ssimd_frame_score_decibels_sum", {{"feature", "float_ssim"}}), 23.5);
  EXPECT_EQ(e.Value("ssimd_frame_score_bucket", {{"feature", "float_ssim"}, {"le", "0.97"}}), 1);
  EXPECT_EQ(e.Value("ssimd_frame_score_bucket", {{"feature", "float_ssim"}, {"le", "0.96"}}), 0);
  EXPECT_THAT(e.Find("ssimd_frame_score_count", {{"feature", "not_a_feature"}}), IsEmpty());
}

// psnr is in dB; mse has no fixed scale and is not observed; float_ms_ssim is a similarity.
TEST(ServiceMetricsTest, PsnrIsDecibelsAndMseIsNotObserved) {
  ServiceMetrics metrics;
  FeatureSet features;
  features.psnr = PsnrOptions{};
  features.psnr->enable_mse = true;
  features.float_ms_ssim = FloatMsSsimOptions{};
  ScoreResult result = GpuResult(0);
  result.scores = {{"psnr_y", 41.5}, {"mse_y", 4.6}, {"float_ms_ssim", 0.991}};
  metrics.RecordFrame(features, result);
  const Exposition e = Parse(metrics.Serialize());
  EXPECT_EQ(e.Value("ssimd_frame_score_decibels_count", {{"feature", "psnr_y"}}), 1);
  EXPECT_EQ(e.Value("ssimd_frame_score_count", {{"feature", "float_ms_ssim"}}), 1);
  EXPECT_THAT(e.Find("ssimd_frame_score_count", {{"feature", "mse_y"}}), IsEmpty());
  EXPECT_THAT(e.Find("ssimd_frame_score_decibels_count", {{"feature", "mse_y"}}), IsEmpty());
  EXPECT_EQ(e.Value("ssimd_frames_scored_total",
                    {{"feature", "psnr+float_ms_ssim"}, {"backend", "gpu"}}),
            1);
}

TEST(ServiceMetricsTest, RpcsAreCountedByMethodAndCanonicalCode) {
  ServiceMetrics metrics;
  metrics.RecordRpc("ScoreClip", "OK");
  metrics.RecordRpc("ScoreClip", "OK");
  metrics.RecordRpc("ScoreClip", "INVALID_ARGUMENT");
  metrics.RecordRpc("ScorePair", "bogus");
  const Exposition e = Parse(metrics.Serialize());

  EXPECT_EQ(e.Value("ssimd_rpcs_total", {{"method", "ScoreClip"}, {"code", "OK"}}), 2);
  EXPECT_EQ(e.Value("ssimd_rpcs_total", {{"method", "ScoreClip"}, {"code", "INVALID_ARGUMENT"}}),
            1);
  EXPECT_EQ(e.Value("ssimd_rpcs_total", {{"method", "ScorePair"}, {"code", "UNKNOWN"}}), 1);
}

TEST(ServiceMetricsTest, TheDecodedMemoryBudgetReportsCapacityUseWaitsAndRefusals) {
  MetricsOptions options;
  options.decoded_memory_budget_bytes = int64_t{100} << 20;
  ServiceMetrics metrics(options);
  Exposition e = Parse(metrics.Serialize());
  EXPECT_EQ(e.Value("ssimd_decoded_memory_budget_bytes"), 100 << 20);
  EXPECT_EQ(e.Value("ssimd_decoded_memory_reserved_bytes"), 0);
  EXPECT_EQ(e.Value("ssimd_decoded_memory_refusals_total", {{"reason", "wait_timeout"}}), 0);

  // Through the server's budget, as the calls' inputs use it.
  ServiceContext ctx;
  ctx.metrics = &metrics;
  ctx.options.decoded_memory_budget_bytes = int64_t{100} << 20;
  ctx.options.decoded_memory_wait = absl::Milliseconds(10);
  PictureMemoryBudget& budget = ctx.picture_memory();
  EXPECT_EQ(&budget, &ctx.picture_memory());  // one per server
  PictureMemoryBudget::Request request;
  request.bytes = int64_t{60} << 20;
  auto held = budget.Reserve(request);
  ASSERT_TRUE(held.ok());
  EXPECT_EQ(Parse(metrics.Serialize()).Value("ssimd_decoded_memory_reserved_bytes"), 60 << 20);
  EXPECT_FALSE(budget.Reserve(request).ok());  // waits, then gives up
  request.bytes = int64_t{200} << 20;
  EXPECT_FALSE(budget.Reserve(request).ok());  // could never fit
  metrics.RecordDecodedMemoryRefusal("picture_pixels");
  metrics.RecordDecodedMemoryRefusal("bogus");
  held->Release();
  e = Parse(metrics.Serialize());
  EXPECT_EQ(e.Value("ssimd_decoded_memory_reserved_bytes"), 0);
  EXPECT_EQ(e.Value("ssimd_decoded_memory_waits_total"), 1);
  EXPECT_EQ(e.Value("ssimd_decoded_memory_refusals_total", {{"reason", "wait_timeout"}}), 1);
  EXPECT_EQ(e.Value("ssimd_decoded_memory_refusals_total", {{"reason", "over_budget"}}), 1);
  EXPECT_EQ(e.Value("ssimd_decoded_memory_refusals_total", {{"reason", "picture_pixels"}}), 1);
  EXPECT_EQ(e.Find("ssimd_decoded_memory_refusals_total").size(), 3u);
}

TEST(ServiceMetricsTest, GaugesFollowStreamsFramesAndDevices) {
  ServiceMetrics metrics;
  // Present from the start, so dashboards and the no-device alert see 0 rather than nothing.
  Exposition e = Parse(metrics.Serialize());
  EXPECT_EQ(e.Value("ssimd_active_streams"), 0);
  EXPECT_EQ(e.Value("ssimd_devices"), 0);
  EXPECT_EQ(e.Value("ssimd_title_evictions_total"), 0);

  metrics.StreamStarted();
  metrics.StreamStarted();
  metrics.StreamFinished();
  metrics.FramesInFlightChanged(5);
  metrics.FramesInFlightChanged(-2);
  DeviceStats healthy{/*index=*/0, /*frames_scored=*/10, /*slots_in_use=*/3,
                      /*slots_total=*/4, /*memory_in_use_bytes=*/int64_t{3} << 30,
                      /*lost=*/false};
  DeviceStats lost{/*index=*/1, 0, 0, 4, 0, /*lost=*/true};
  metrics.UpdateDevices({healthy, lost});
  e = Parse(metrics.Serialize());
  EXPECT_EQ(e.Value("ssimd_active_streams"), 1);
  EXPECT_EQ(e.Value("ssimd_frames_in_flight"), 3);
  EXPECT_EQ(e.Value("ssimd_devices"), 1);
  EXPECT_EQ(e.Value("ssimd_device_up", {{"device", "0"}}), 1);
  EXPECT_EQ(e.Value("ssimd_device_up", {{"device", "1"}}), 0);
  EXPECT_EQ(e.Value("ssimd_device_slots_in_use", {{"device", "0"}}), 3);
  EXPECT_EQ(e.Value("ssimd_device_slots", {{"device", "0"}}), 4);
  EXPECT_EQ(e.Value("ssimd_device_memory_used_bytes", {{"device", "0"}}), 3.0 * (1 << 30));
}

TEST(ServiceMetricsTest, DeviceOrderedSumsBecomeCounterIncrements) {
  ServiceMetrics metrics;
  DeviceStats device;
  device.index = 2;
  device.float_ssim_ordered_sums = 3;
  metrics.UpdateDevices({device});
  device.float_ssim_ordered_sums = 5;
  device.ssim_ordered_sums = 7;
  device.float_ms_ssim_ordered_sums = 2;
  metrics.UpdateDevices({device});
  metrics.UpdateDevices({device});  // no change: no increment
  Exposition e = Parse(metrics.Serialize());
  EXPECT_EQ(e.Value("ssimd_device_ordered_sums_total", {{"device", "2"}, {"feature", "float_ssim"}}),
            5);
  EXPECT_EQ(e.Value("ssimd_device_ordered_sums_total", {{"device", "2"}, {"feature", "ssim"}}), 7);
  EXPECT_EQ(e.Value("ssimd_device_ordered_sums_total",
                    {{"device", "2"}, {"feature", "float_ms_ssim"}}),
            2);
  device.float_ssim_ordered_sums = 1;  // the device was re-created and counts from 0 again
  metrics.UpdateDevices({device});
  e = Parse(metrics.Serialize());
  EXPECT_EQ(e.Value("ssimd_device_ordered_sums_total", {{"device", "2"}, {"feature", "float_ssim"}}),
            6);
}

TEST(ServiceMetricsTest, ExactSumFallbacksAreCountedByReason) {
  ServiceMetrics metrics;
  DeviceStats device;
  device.index = 1;
  device.ssim_exact_fallbacks_serial_budget = 2;
  metrics.UpdateDevices({device});
  device.ssim_exact_fallbacks_serial_budget = 3;
  device.ssim_exact_fallbacks_check_failed = 1;
  metrics.UpdateDevices({device});
  const Exposition e = Parse(metrics.Serialize());
  EXPECT_EQ(e.Value("ssimd_device_exact_sum_fallbacks_total",
                    {{"device", "1"}, {"reason", "serial_budget"}}),
            3);
  EXPECT_EQ(e.Value("ssimd_device_exact_sum_fallbacks_total",
                    {{"device", "1"}, {"reason", "check_failed"}}),
            1);
}

TEST(ServiceMetricsTest, DecodedPlanesAreCountedByPath) {
  ServiceMetrics metrics;
  DeviceStats device;
  device.index = 0;
  device.planes_read_on_device = 10;
  metrics.UpdateDevices({device});
  device.planes_read_on_device = 14;
  device.device_planes_through_host = 2;
  metrics.UpdateDevices({device});
  const Exposition e = Parse(metrics.Serialize());
  EXPECT_EQ(e.Value("ssimd_device_decoded_planes_total",
                    {{"device", "0"}, {"path", "read_on_device"}}),
            14);
  EXPECT_EQ(e.Value("ssimd_device_decoded_planes_total",
                    {{"device", "0"}, {"path", "through_host"}}),
            2);
}

std::set<std::string> TitlesIn(const Exposition& e) {
  std::set<std::string> titles;
  for (const Sample& s : e.Find("ssimd_title_score")) titles.insert(s.labels.at("title"));
  return titles;
}

TEST(ServiceMetricsTest, TitleGaugesStayAtTheCapAndCountEvictions) {
  constexpr int kCap = 4;
  constexpr int kTitles = 25;
  ServiceMetrics metrics(MetricsOptions{kCap});
  for (int i = 0; i < kTitles; ++i) {
    metrics.RecordTitleScore(absl::StrCat("title-", i), "float_ssim", 0.9 + i / 1000.0);
    metrics.RecordTitleScore(absl::StrCat("title-", i), "ssim", 0.8);
    const Exposition e = Parse(metrics.Serialize());
    const int kept = std::min(i + 1, kCap);
    ASSERT_EQ(TitlesIn(e).size(), static_cast<size_t>(kept)) << "after title " << i;
    ASSERT_EQ(e.Find("ssimd_title_score").size(), static_cast<size_t>(2 * kept));
    ASSERT_EQ(e.Value("ssimd_titles_tracked"), kept);
  }
  const Exposition e = Parse(metrics.Serialize());
  EXPECT_EQ(e.Value("ssimd_title_evictions_total"), kTitles - kCap);
  EXPECT_EQ(TitlesIn(e),
            (std::set<std::string>{"title-21", "title-22", "title-23", "title-24"}));
  EXPECT_DOUBLE_EQ(e.Value("ssimd_title_score", {{"title", "title-24"}, {"feature", "float_ssim"}}),
                   0.924);
}

TEST(ServiceMetricsTest, TitleEvictionDropsTheLeastRecentlyUpdated) {
  ServiceMetrics metrics(MetricsOptions{2});
  metrics.RecordTitleScore("a", "float_ssim", 0.9);
  metrics.RecordTitleScore("b", "float_ssim", 0.9);
  metrics.RecordTitleScore("a", "float_ssim", 0.95);  // a is now newer than b
  metrics.RecordTitleScore("c", "float_ssim", 0.9);
  const Exposition e = Parse(metrics.Serialize());
  EXPECT_EQ(TitlesIn(e), (std::set<std::string>{"a", "c"}));
  EXPECT_EQ(e.Value("ssimd_title_score", {{"title", "a"}}), 0.95);
  EXPECT_EQ(e.Value("ssimd_title_evictions_total"), 1);
}

TEST(ServiceMetricsTest, TitleLabelsAreBoundedAndValid) {
  ServiceMetrics metrics(MetricsOptions{10});
  metrics.RecordTitleScore(std::string(500, 'x'), "float_ssim", 0.9);
  metrics.RecordTitleScore("", "float_ssim", 0.9);            // no title: nothing to key on
  metrics.RecordTitleScore("t", "Float SSIM", 0.9);           // not a metric name
  metrics.RecordTitleScore("bad\xFFutf8", "float_ssim", 0.9);  // would break the exposition
  const Exposition e = Parse(metrics.Serialize());
  EXPECT_EQ(TitlesIn(e), (std::set<std::string>{std::string(128, 'x'), "bad\xEF\xBF\xBDutf8"}));
}

TEST(ServiceMetricsTest, ZeroCapKeepsNoTitles) {
  ServiceMetrics metrics(MetricsOptions{0});
  metrics.RecordTitleScore("a", "float_ssim", 0.9);
  EXPECT_THAT(TitlesIn(Parse(metrics.Serialize())), IsEmpty());
}

TEST(ServiceMetricsTest, ConcurrentTitleUpdatesKeepTheCap) {
  constexpr int kCap = 16;
  ServiceMetrics metrics(MetricsOptions{kCap});
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&metrics, t] {
      for (int i = 0; i < 500; ++i) {
        metrics.RecordTitleScore(absl::StrCat("t", t, "-", i % 50), "float_ssim", 0.9);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  const Exposition e = Parse(metrics.Serialize());
  EXPECT_EQ(TitlesIn(e).size(), static_cast<size_t>(kCap));
  EXPECT_EQ(e.Value("ssimd_titles_tracked"), kCap);
}

RenditionRecord Rung(const std::string& title, const std::string& rendition, double mean = 0.99) {
  RenditionRecord r;
  r.title = title;
  r.rendition = rendition;
  r.codec = "h264";
  r.width = 640;
  r.height = 360;
  r.bitrate_bits_per_second = 182552;
  r.size_bytes = 22819;
  r.pooled["float_ssim"] = {mean, mean - 0.001, mean - 0.01};
  r.pooled["ssim"] = {mean - 0.02, mean - 0.021, std::nullopt};
  return r;
}

std::set<std::string> RenditionsIn(const Exposition& e, const std::string& title) {
  std::set<std::string> out;
  for (const Sample& s : e.Find("ssimd_rendition_bytes_per_second", {{"title", title}})) {
    out.insert(s.labels.at("rendition"));
  }
  return out;
}

TEST(ServiceMetricsTest, RenditionGaugesHoldTheLadderOfATitle) {
  ServiceMetrics metrics;
  // A score that needs all 17 digits: the exposition must carry it exactly.
  metrics.RecordRendition(Rung("autumn", "360p", 0.9961172342300415));
  RenditionRecord hevc = Rung("autumn", "720p");
  hevc.codec = "hevc";
  hevc.width = 1280;
  hevc.height = 720;
  hevc.bitrate_bits_per_second = 694848;
  hevc.size_bytes = 86856;
  metrics.RecordRendition(hevc);
  const Exposition e = Parse(metrics.Serialize());
  EXPECT_EQ(e.types.at("ssimd_rendition_score"), "gauge");
  EXPECT_EQ(e.types.at("ssimd_ladder_evictions_total"), "counter");
  EXPECT_EQ(RenditionsIn(e, "autumn"), (std::set<std::string>{"360p", "720p"}));
  const std::map<std::string, std::string> p360 = {{"title", "autumn"}, {"rendition", "360p"}};
  auto with = [](std::map<std::string, std::string> labels,
                 std::map<std::string, std::string> more) {
    labels.insert(more.begin(), more.end());
    return labels;
  };
  EXPECT_EQ(e.Value("ssimd_rendition_score",
                    with(p360, {{"feature", "float_ssim"}, {"pool", "mean"}})),
            0.9961172342300415);
  EXPECT_EQ(e.Value("ssimd_rendition_score",
                    with(p360, {{"feature", "float_ssim"}, {"pool", "p5"}})),
            0.9961172342300415 - 0.01);
  // ssim had no 5th percentile in its summary: mean and harmonic mean only.
  EXPECT_EQ(e.Find("ssimd_rendition_score", with(p360, {{"feature", "ssim"}})).size(), 2u);
  EXPECT_EQ(e.Value("ssimd_rendition_bytes_per_second", p360), 182552 / 8);
  EXPECT_EQ(e.Value("ssimd_rendition_size_bytes", p360), 22819);
  EXPECT_EQ(e.Value("ssimd_rendition_info", with(p360, {{"codec", "h264"}, {"width", "640"},
                                                        {"height", "360"}})),
            1);
  EXPECT_EQ(e.Value("ssimd_rendition_info", {{"rendition", "720p"}, {"codec", "hevc"}}), 1);
  EXPECT_EQ(e.Value("ssimd_ladder_titles_tracked"), 1);
  EXPECT_EQ(e.Value("ssimd_ladder_renditions_tracked"), 2);
  EXPECT_EQ(e.Value("ssimd_ladder_evictions_total", {{"reason", "title_cap"}}), 0);
  EXPECT_EQ(e.Value("ssimd_ladder_evictions_total", {{"reason", "rendition_cap"}}), 0);
}

TEST(ServiceMetricsTest, LadderSeriesStayWithinTheTitleAndRenditionCaps) {
  constexpr int kTitleCap = 3;
  constexpr int kRenditionCap = 4;
  constexpr int kTitles = 5;
  constexpr int kRenditions = 6;
  ServiceMetrics metrics(MetricsOptions{kTitleCap, kRenditionCap});
  for (int t = 0; t < kTitles; ++t) {
    for (int r = 0; r < kRenditions; ++r) {
      metrics.RecordRendition(Rung(absl::StrCat("title-", t), absl::StrCat("rung-", r)));
    }
  }
  const Exposition e = Parse(metrics.Serialize());
  std::set<std::string> titles;
  for (const Sample& s : e.Find("ssimd_rendition_info")) titles.insert(s.labels.at("title"));
  EXPECT_EQ(titles, (std::set<std::string>{"title-2", "title-3", "title-4"}));
  for (const std::string& title : titles) {
    // The most recently scored renditions of each title are the ones kept.
    EXPECT_EQ(RenditionsIn(e, title),
              (std::set<std::string>{"rung-2", "rung-3", "rung-4", "rung-5"}))
        << title;
  }
  const size_t rungs = kTitleCap * kRenditionCap;
  EXPECT_EQ(e.Find("ssimd_rendition_bytes_per_second").size(), rungs);
  EXPECT_EQ(e.Find("ssimd_rendition_size_bytes").size(), rungs);
  EXPECT_EQ(e.Find("ssimd_rendition_info").size(), rungs);
  // float_ssim: mean, harmonic mean, p5; ssim: mean, harmonic mean.
  EXPECT_EQ(e.Find("ssimd_rendition_score").size(), rungs * 5);
  EXPECT_EQ(e.Value("ssimd_ladder_titles_tracked"), kTitleCap);
  EXPECT_EQ(e.Value("ssimd_ladder_renditions_tracked"), rungs);
  EXPECT_EQ(e.Value("ssimd_ladder_evictions_total", {{"reason", "title_cap"}}),
            kTitles - kTitleCap);
  EXPECT_EQ(e.Value("ssimd_ladder_evictions_total", {{"reason", "rendition_cap"}}),
            kTitles * (kRenditions - kRenditionCap));
  // Ladders have a title list of their own: the per-title scores are untouched.
  EXPECT_THAT(TitlesIn(e), IsEmpty());
}

TEST(ServiceMetricsTest, ARenditionScoredAgainReplacesItsSeries) {
  ServiceMetrics metrics;
  metrics.RecordRendition(Rung("t", "540p"));
  RenditionRecord again = Rung("t", "540p", 0.95);
  again.codec = "vp9";
  again.pooled.erase("ssim");
  metrics.RecordRendition(again);
  const Exposition e = Parse(metrics.Serialize());
  EXPECT_EQ(e.Find("ssimd_rendition_info").size(), 1u);
  EXPECT_EQ(e.Value("ssimd_rendition_info", {{"codec", "vp9"}}), 1);
  EXPECT_THAT(e.Find("ssimd_rendition_score", {{"feature", "ssim"}}), IsEmpty());
  EXPECT_EQ(e.Value("ssimd_rendition_score", {{"feature", "float_ssim"}, {"pool", "mean"}}), 0.95);
  EXPECT_EQ(e.Value("ssimd_ladder_renditions_tracked"), 1);
}

TEST(ServiceMetricsTest, RenditionLabelsAreBoundedAndValid) {
  ServiceMetrics metrics;
  metrics.RecordRendition(Rung("", "360p"));  // no title: no one could pick it
  metrics.RecordRendition(Rung("t", ""));
  RenditionRecord odd = Rung(std::string(300, 't'), "bad\xFF");
  odd.codec = "H.264 \"x\"";
  odd.pooled["float_ssim_l"] = {0.5, 0.5, 0.5};  // enable_lcs outputs are not kept
  odd.pooled["psnr_y"] = {38.5, 38.25, 31.0};     // headline metrics are
  odd.pooled["psnr_cb"] = {40.0, 40.0, 40.0};     // chroma planes and mse are not
  odd.pooled["mse_y"] = {9.0, 9.0, 9.0};
  metrics.RecordRendition(odd);
  const Exposition e = Parse(metrics.Serialize());
  ASSERT_EQ(e.Find("ssimd_rendition_info").size(), 1u);
  const Sample info = e.Find("ssimd_rendition_info")[0];
  EXPECT_EQ(info.labels.at("title"), std::string(128, 't'));
  EXPECT_EQ(info.labels.at("rendition"), "bad\xEF\xBF\xBD");
  EXPECT_EQ(info.labels.at("codec"), "other");
  EXPECT_THAT(e.Find("ssimd_rendition_score", {{"feature", "float_ssim_l"}}), IsEmpty());
  EXPECT_THAT(e.Find("ssimd_rendition_score", {{"feature", "psnr_cb"}}), IsEmpty());
  EXPECT_THAT(e.Find("ssimd_rendition_score", {{"feature", "mse_y"}}), IsEmpty());
  EXPECT_EQ(e.Value("ssimd_rendition_score", {{"feature", "psnr_y"}, {"pool", "mean"}}), 38.5);
}

TEST(ServiceMetricsTest, DecodeAndScaleAreStagesOfTheCpu) {
  ServiceMetrics metrics;
  const FeatureSet features = FloatSsim();
  metrics.RecordInputStages(features, 0.002, std::nullopt);  // the source: decoded only
  metrics.RecordInputStages(features, 0.001, 0.003);         // a rendition: decoded and upscaled
  const Exposition e = Parse(metrics.Serialize());
  const std::map<std::string, std::string> decode = {
      {"stage", "decode"}, {"feature", "float_ssim"}, {"backend", "cpu"}};
  EXPECT_EQ(e.Value("ssimd_frame_stage_seconds_count", decode), 2);
  EXPECT_NEAR(e.Value("ssimd_frame_stage_seconds_sum", decode), 0.003, 1e-12);
  EXPECT_EQ(e.Value("ssimd_frame_stage_seconds_count", {{"stage", "scale"}}), 1);
}

TEST(ServiceMetricsTest, DecodeErrorsAreCountedByKindOnly) {
  ServiceMetrics metrics;
  metrics.RecordDecodeError(DecodeError(DecodeErrorKind::kTruncated, "cut.mp4: truncated"));
  metrics.RecordDecodeError(DecodeError(DecodeErrorKind::kTruncated, "cut2.mp4: truncated"));
  metrics.RecordDecodeError(DecodeError(DecodeErrorKind::kCorruptStream, "bad.mp4: frame 3"));
  metrics.RecordDecodeError(absl::InvalidArgumentError("frame rates differ"));  // not a decoder's
  metrics.RecordDecodeError(absl::OkStatus());
  const Exposition e = Parse(metrics.Serialize());
  EXPECT_EQ(e.Find("ssimd_decode_errors_total").size(), 2u);
  EXPECT_EQ(e.Value("ssimd_decode_errors_total", {{"kind", "truncated"}}), 2);
  EXPECT_EQ(e.Value("ssimd_decode_errors_total", {{"kind", "corrupt_stream"}}), 1);
}

TEST(ServiceMetricsTest, DecodeFallbacksAreCountedByAKnownReasonOnly) {
  ServiceMetrics metrics;
  metrics.RecordDecodeFallback("engine_limits");
  metrics.RecordDecodeFallback("engine_limits");
  metrics.RecordDecodeFallback("sessions_busy");
  metrics.RecordDecodeFallback("nvdec decodes h264 up to 4096x4096");  // a detail, not a label
  const Exposition e = Parse(metrics.Serialize());
  EXPECT_EQ(e.Find("ssimd_decode_fallbacks_total").size(), 2u);
  EXPECT_EQ(e.Value("ssimd_decode_fallbacks_total", {{"reason", "engine_limits"}}), 2);
  EXPECT_EQ(e.Value("ssimd_decode_fallbacks_total", {{"reason", "sessions_busy"}}), 1);
}

TEST(ServiceMetricsTest, DecoderUtilizationAppearsWithItsFirstReading) {
  ServiceMetrics metrics;
  EXPECT_THAT(Parse(metrics.Serialize()).Find("ssimd_decode_engine_utilization_ratio"),
              IsEmpty());
  metrics.UpdateDecodeEngineUtilization(0.25);
  metrics.UpdateDecodeEngineUtilization(0.75);
  const Exposition e = Parse(metrics.Serialize());
  ASSERT_EQ(e.Find("ssimd_decode_engine_utilization_ratio").size(), 1u);
  EXPECT_EQ(e.Value("ssimd_decode_engine_utilization_ratio", {}), 0.75);
}

TEST(ServiceMetricsTest, UpscalesAreCountedByWhereAndFallbacksByAKnownReason) {
  ServiceMetrics metrics;
  metrics.RecordUpscale("scorer");
  metrics.RecordUpscale("libswscale");
  metrics.RecordUpscale("libswscale");
  metrics.RecordUpscaleFallback("mismatch");
  metrics.RecordUpscaleFallback("frame");
  metrics.RecordUpscaleFallback("a client's text");  // never a label of its own
  const Exposition e = Parse(metrics.Serialize());
  EXPECT_EQ(e.Value("ssimd_upscales_total", {{"where", "scorer"}}), 1);
  EXPECT_EQ(e.Value("ssimd_upscales_total", {{"where", "libswscale"}}), 2);
  EXPECT_EQ(e.Find("ssimd_upscale_fallbacks_total").size(), 3u);
  EXPECT_EQ(e.Value("ssimd_upscale_fallbacks_total", {{"reason", "mismatch"}}), 1);
  EXPECT_EQ(e.Value("ssimd_upscale_fallbacks_total", {{"reason", "frame"}}), 1);
  EXPECT_EQ(e.Value("ssimd_upscale_fallbacks_total", {{"reason", "error"}}), 1);
}

TEST(ServiceMetricsTest, ZeroCapsKeepNoLadder) {
  for (const MetricsOptions& options : {MetricsOptions{0, 16}, MetricsOptions{16, 0}}) {
    ServiceMetrics metrics(options);
    metrics.RecordRendition(Rung("t", "360p"));
    const Exposition e = Parse(metrics.Serialize());
    EXPECT_THAT(e.Find("ssimd_rendition_info"), IsEmpty());
    EXPECT_EQ(e.Value("ssimd_ladder_evictions_total", {{"reason", "title_cap"}}), 0);
  }
}

// A minimal HTTP/1.0 GET on loopback, to read /metrics as Prometheus would.
std::string HttpGet(int port, const std::string& path) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) {
    close(fd);
    return "";
  }
  const std::string request = "GET " + path + " HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n";
  if (write(fd, request.data(), request.size()) != static_cast<ssize_t>(request.size())) {
    close(fd);
    return "";
  }
  std::string response;
  char buffer[4096];
  for (ssize_t n; (n = read(fd, buffer, sizeof(buffer))) > 0;) response.append(buffer, n);
  close(fd);
  return response;
}

TEST(ServiceMetricsTest, ServesMetricsOverHttpOnAnyFreePort) {
  ServiceMetrics metrics;
  EXPECT_EQ(metrics.HttpPort(), 0);
  ASSERT_TRUE(metrics.StartHttp("127.0.0.1:0").ok());
  const int port = metrics.HttpPort();
  ASSERT_GT(port, 0);
  metrics.RecordRpc("ScoreClip", "OK");
  const std::string response = HttpGet(port, "/metrics");
  EXPECT_THAT(response, ::testing::StartsWith("HTTP/1.1 200"));
  EXPECT_THAT(response, ::testing::HasSubstr("ssimd_rpcs_total{"));

  EXPECT_EQ(metrics.StartHttp("127.0.0.1:0").code(), absl::StatusCode::kFailedPrecondition);
  ServiceMetrics other;
  const absl::Status busy = other.StartHttp(absl::StrCat("127.0.0.1:", port));
  EXPECT_EQ(busy.code(), absl::StatusCode::kUnavailable) << busy;
  EXPECT_EQ(other.HttpPort(), 0);
}

TEST(ServiceMetricsTest, RefusesMalformedAddresses) {
  ServiceMetrics metrics;
  for (const char* address : {"", "9090", ":9090", "localhost", "127.0.0.1:http",
                              "127.0.0.1:65536", "127.0.0.1:-1"}) {
    const absl::Status status = metrics.StartHttp(address);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << address;
    EXPECT_THAT(std::string(status.message()), ::testing::HasSubstr("host:port")) << address;
  }
}

}  // namespace
}  // namespace ssimd
