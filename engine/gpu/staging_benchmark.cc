// Host-side staging speed: packing a luma plane into a staging buffer, with (above 8 bits) the
// sample range check, against a plain memcpy of the same bytes. Runs without a GPU; on a GPU node
// the staging buffer is pinned memory, here it is ordinary memory.
//   bazel run //engine/gpu:staging_benchmark
#include <cstring>
#include <vector>

#include "benchmark/benchmark.h"
#include "engine/gpu/staging.h"

namespace ssimd {
namespace {

struct Size {
  int width, height;
};
constexpr Size kSizes[] = {{1920, 1080}, {3840, 2160}};

Geometry MakeGeometry(int size_index, int bit_depth) {
  Geometry geometry;
  geometry.width = kSizes[size_index].width;
  geometry.height = kSizes[size_index].height;
  geometry.bit_depth = bit_depth;
  return geometry;
}

// A plane of varied samples (a ramp modulo the peak), all within the bit depth's peak.
std::vector<uint8_t> MakeSamples(const Geometry& geometry) {
  std::vector<uint8_t> bytes(LumaBytes(geometry));
  const int peak = (1 << geometry.bit_depth) - 1;
  if (geometry.bit_depth == 8) {
    for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<uint8_t>(i * 7 % 256);
  } else {
    for (size_t i = 0; i + 1 < bytes.size(); i += 2) {
      const uint16_t sample = static_cast<uint16_t>((i / 2) * 13 % (peak + 1));
      std::memcpy(&bytes[i], &sample, 2);
    }
  }
  return bytes;
}

// args: size index, bit depth, 0 = StageLumaPlane, 1 = memcpy
void BM_Stage(benchmark::State& state) {
  const Geometry geometry = MakeGeometry(state.range(0), static_cast<int>(state.range(1)));
  const std::vector<uint8_t> samples = MakeSamples(geometry);
  std::vector<uint8_t> staging(samples.size());
  const bool plain_copy = state.range(2) == 1;
  absl::StatusOr<LumaView> view =
      MakeLumaView(geometry, absl::Span<const uint8_t>(samples), "reference luma");
  if (!view.ok()) {
    state.SkipWithError(std::string(view.status().message()).c_str());
    return;
  }
  for (auto _ : state) {
    if (plain_copy) {
      std::memcpy(staging.data(), samples.data(), samples.size());
    } else if (absl::Status s = StageLumaPlane(*view, staging.data(), "reference"); !s.ok()) {
      state.SkipWithError(std::string(s.message()).c_str());
      break;
    }
    benchmark::DoNotOptimize(staging.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(samples.size()));
  state.SetLabel(plain_copy ? "memcpy" : "StageLumaPlane");
}

BENCHMARK(BM_Stage)
    ->ArgNames({"size", "bits", "memcpy"})
    ->ArgsProduct({{0, 1}, {8, 10}, {0, 1}})
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

}  // namespace
}  // namespace ssimd

BENCHMARK_MAIN();
