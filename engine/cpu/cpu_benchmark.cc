// Frames per second of the CPU scorer at 576x324, 1920x1080 and 3840x2160, 8 and 10 bit, for
// float_ssim (automatic scale) and integer ssim, on one thread and on every core.
//   bazel run -c opt //engine/cpu:cpu_benchmark -- --benchmark_min_time=2
#include <memory>
#include <thread>

#include "benchmark/benchmark.h"
#include "engine/cpu/cpu_scorer.h"
#include "engine/synthetic_picture.h"

namespace ssimd {
namespace {


struct Size {
  int width, height;
};
constexpr Size kSizes[] = {{576, 324}, {1920, 1080}, {3840, 2160}};

// args: size index, bit depth, feature (0 float_ssim, 1 ssim), threads (0 = all cores)
void BM_CpuScore(benchmark::State& state) {
  const Size size = kSizes[state.range(0)];
  const int bit_depth = static_cast<int>(state.range(1));
  const bool integer = state.range(2) == 1;
  const int threads = static_cast<int>(state.range(3));
  const SyntheticPlane ref = TexturedPlane(size.width, size.height, bit_depth, 1);
  const SyntheticPlane dist = Distort(ref, 2, 1 << (bit_depth - 5));
  FeatureSet features;
  if (integer) {
    features.ssim = IntegerSsimOptions{};
  } else {
    features.float_ssim = FloatSsimOptions{};
  }
  auto scorer = MakeCpuScorer({.threads = threads});
  const FramePair pair{ref.view(), dist.view()};
  for (auto _ : state) {
    auto result = scorer->Score(ref.geometry(), features, pair);
    if (!result.ok()) {
      state.SkipWithError(std::string(result.status().message()).c_str());
      break;
    }
    benchmark::DoNotOptimize(result->scores);
  }
  state.counters["fps"] = benchmark::Counter(static_cast<double>(state.iterations()),
                                             benchmark::Counter::kIsRate);
  state.SetLabel(std::string(integer ? "ssim " : "float_ssim ") + std::to_string(size.width) +
                 "x" + std::to_string(size.height) + " " + std::to_string(bit_depth) + "-bit " +
                 (threads == 0 ? std::to_string(std::thread::hardware_concurrency()) : "1") +
                 " threads");
}

BENCHMARK(BM_CpuScore)
    ->ArgNames({"size", "bits", "integer", "threads"})
    ->ArgsProduct({{0, 1, 2}, {8, 10}, {0, 1}, {1, 0}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace ssimd

BENCHMARK_MAIN();
