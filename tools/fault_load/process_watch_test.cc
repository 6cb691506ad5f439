#include "tools/fault_load/process_watch.h"

#include <unistd.h>

#include <cmath>

#include "gtest/gtest.h"

namespace ssimd::fault_load {
namespace {

TEST(ProcessWatchTest, ParsesVmRss) {
  auto kb = ParseVmRssKb("Name:\tssimd_server\nVmPeak:\t  900 kB\nVmRSS:\t   45312 kB\nThreads: 9\n");
  ASSERT_TRUE(kb.ok()) << kb.status();
  EXPECT_EQ(*kb, 45312);
  EXPECT_FALSE(ParseVmRssKb("Name:\tx\nVmPeak:\t900 kB\n").ok());
}

TEST(ProcessWatchTest, ParsesVmHwmNotVmRss) {
  auto kb = ParseVmHwmKb("VmPeak:\t  900 kB\nVmHWM:\t   51200 kB\nVmRSS:\t   45312 kB\n");
  ASSERT_TRUE(kb.ok()) << kb.status();
  EXPECT_EQ(*kb, 51200);
  EXPECT_FALSE(ParseVmHwmKb("VmRSS:\t45312 kB\n").ok());
  // This process's own high-water mark is at least what it holds now.
  auto now = ReadVmRssKb(getpid());
  auto own = ReadVmHwmKb(getpid());  // after: the mark can only have risen since
  ASSERT_TRUE(own.ok() && now.ok());
  EXPECT_GE(*own, *now);
}

TEST(ProcessWatchTest, ParsesNvidiaSmiPerProcess) {
  const char* text = "4242, 1530\n17, 90\n4242, 470\n";
  auto mib = ParseNvidiaSmiUsedMib(text, 4242);
  ASSERT_TRUE(mib.ok()) << mib.status();
  EXPECT_EQ(*mib, 2000);  // one line per GPU the process uses
  EXPECT_EQ(ParseNvidiaSmiUsedMib(text, 5).status().code(), absl::StatusCode::kNotFound);
  EXPECT_FALSE(ParseNvidiaSmiUsedMib("", 4242).ok());
}

TEST(ProcessWatchTest, SeesItself) {
  EXPECT_TRUE(ProcessAlive(getpid()));
  auto kb = ReadVmRssKb(getpid());
  ASSERT_TRUE(kb.ok()) << kb.status();
  EXPECT_GT(*kb, 0);
}

TEST(ProcessWatchTest, GrowthComparesFirstAndLastQuarterAfterWarmup) {
  std::vector<RssSample> samples;
  for (int i = 0; i < 5; ++i) samples.push_back({static_cast<double>(i), 10});  // warm-up
  for (int i = 0; i < 100; ++i) samples.push_back({5.0 + i, i < 50 ? 1000 : 1030});
  const RssGrowth g = ComputeRssGrowth(samples, 5.0);
  ASSERT_TRUE(g.measured);
  EXPECT_EQ(g.samples, 100);
  EXPECT_EQ(g.baseline_kb, 1000);
  EXPECT_EQ(g.final_kb, 1030);
  EXPECT_EQ(g.peak_kb, 1030);
  EXPECT_NEAR(g.growth_pct, 3.0, 1e-9);
}

TEST(ProcessWatchTest, SwingsAreNotGrowthButASteadyClimbIs) {
  std::vector<RssSample> swinging, leaking;
  for (int i = 0; i < 200; ++i) {
    // +-25% from one sample to the next, around a flat level, with a few high spikes at the end.
    const int64_t level = 1000 + (i % 2 == 0 ? 250 : -250) + (i > 190 ? 400 : 0);
    swinging.push_back({static_cast<double>(i), level});
    leaking.push_back({static_cast<double>(i), 1000 + i});  // 1 KiB a second
  }
  EXPECT_LT(std::fabs(ComputeRssGrowth(swinging, 0).growth_pct), 1.0);
  EXPECT_GT(ComputeRssGrowth(leaking, 0).growth_pct, 10.0);
}

TEST(ProcessWatchTest, TooFewSamplesAreNotJudged) {
  const RssGrowth g = ComputeRssGrowth({{0, 5}, {1, 6}, {2, 7}, {3, 8}}, 1.0);
  EXPECT_FALSE(g.measured);
  EXPECT_EQ(g.samples, 3);
}

}  // namespace
}  // namespace ssimd::fault_load
