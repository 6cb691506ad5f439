// Cost of the metrics on the frame path and of a scrape (numbers in docs/adr/0040 and 0041).
#include <string>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "server/metrics.h"

namespace ssimd {
namespace {

ScoreResult GpuResult() {
  ScoreResult result;
  result.backend = "gpu:0";
  result.scores = {{"float_ssim", 0.987}, {"ssim", 0.981}};
  result.timings = {0.0001, 0.0004, 0.0002, 0.0003, 0.00005, 0.00105};
  return result;
}

FeatureSet BothFeatures() {
  FeatureSet features;
  features.float_ssim = FloatSsimOptions{};
  features.ssim = IntegerSsimOptions{};
  return features;
}

void BM_RecordFrame(benchmark::State& state) {
  ServiceMetrics metrics;
  const FeatureSet features = BothFeatures();
  const ScoreResult result = GpuResult();
  for (auto _ : state) metrics.RecordFrame(features, result);
}
BENCHMARK(BM_RecordFrame)->ThreadRange(1, 2);

void BM_RecordTitleScoreWithEviction(benchmark::State& state) {
  ServiceMetrics metrics(MetricsOptions{1000});
  int i = 0;
  for (auto _ : state) metrics.RecordTitleScore(absl::StrCat("title-", i++), "float_ssim", 0.9);
}
BENCHMARK(BM_RecordTitleScoreWithEviction);

// A scrape with `range(0)` titles (two features each) after frames on both backends.
void BM_Serialize(benchmark::State& state) {
  ServiceMetrics metrics(MetricsOptions{static_cast<int>(state.range(0))});
  const FeatureSet features = BothFeatures();
  ScoreResult gpu = GpuResult();
  ScoreResult cpu = GpuResult();
  cpu.backend = "cpu";
  cpu.fallback_reason = "gpu refused: 16-bit";
  metrics.RecordFrame(features, gpu);
  metrics.RecordFrame(features, cpu);
  for (int i = 0; i < state.range(0); ++i) {
    metrics.RecordTitleScore(absl::StrCat("title-", i), "float_ssim", 0.9);
    metrics.RecordTitleScore(absl::StrCat("title-", i), "ssim", 0.9);
  }
  size_t bytes = 0;
  for (auto _ : state) bytes = metrics.Serialize().size();
  state.counters["bytes"] = static_cast<double>(bytes);
}
BENCHMARK(BM_Serialize)->Arg(0)->Arg(1000)->Arg(10000);

}  // namespace
}  // namespace ssimd

BENCHMARK_MAIN();
