// Kernel benchmark: device time per frame (events around the kernels) for float_ssim at 576x324,
// 1080p and 4K (8- and 10-bit, automatic scale) and ssim at 1080p and 4K with its frame sum three
// ways (block order, exact on the host, exact on the device), beside the CPU engine's time for the
// same frame in the same run, then the throughput of several streams sharing the GPU.
//
// Usage: gpu_bench [frames per case, default 50]
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "engine/cpu/cpu_scorer.h"
#include "engine/gpu/gpu_scorer.h"
#include "engine/gpu/gpu_test_hooks.h"
#include "engine/synthetic_picture.h"

namespace ssimd {
namespace {

// Realistic content and a mildly distorted copy: work for every stage, as a real clip gives.
struct Planes {
  Geometry geometry;
  SyntheticPlane ref, dist;

  Planes(int width, int height, int bit_depth)
      : geometry{width, height, bit_depth, ChromaFormat::k420},
        ref(TexturedPlane(width, height, bit_depth, static_cast<uint32_t>(width * 31 + height))),
        dist(Distort(ref, static_cast<uint32_t>(height * 17 + width),
                     static_cast<int>(PeakValue(bit_depth) / 32))) {}
  FramePair pair() const { return FramePair{ref.view(), dist.view()}; }
};

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

struct Case {
  const char* name;
  int width, height, bit_depth;
  FeatureSet features;
  bool exact_sum_on_host = false;  // the exact ssim sum from every term read back, on the host
};

FeatureSet FloatSsimAuto() {
  FeatureSet f;
  f.float_ssim = FloatSsimOptions{};
  return f;
}

FeatureSet IntegerSsim(bool exact) {
  FeatureSet f;
  f.ssim = IntegerSsimOptions{};
  f.ssim->exact = exact;
  return f;
}

int Run(int frames) {
  GpuOptions options;
  options.streams_per_device = 1;
  // The hook switches the exact ssim sum between the device and the host's serial loop, so the
  // three ways of summing ssim run side by side in one process.
  auto hooks = std::make_shared<GpuTestHooks>();
  auto gpu = MakeGpuScorerWithHooks(options, hooks);
  if (!gpu.ok()) {
    std::printf("no GPU: %s\n", std::string(gpu.status().message()).c_str());
    return 1;
  }
  for (const GpuDeviceInfo& d : (*gpu)->Devices()) {
    std::printf("device %d: %s (%s)\n", d.index, d.name.c_str(), d.arch.c_str());
  }
  auto cpu = MakeCpuScorer();
  const std::vector<Case> cases = {
      {"float_ssim", 576, 324, 8, FloatSsimAuto()},
      {"float_ssim", 1920, 1080, 8, FloatSsimAuto()},
      {"float_ssim", 1920, 1080, 10, FloatSsimAuto()},
      {"float_ssim", 3840, 2160, 8, FloatSsimAuto()},
      {"float_ssim", 3840, 2160, 10, FloatSsimAuto()},
      // ssim's frame sum three ways: block order (fast_sum), the exact sum on the host from
      // every term read back, and the exact sum on the device.
      {"ssim fast", 1920, 1080, 8, IntegerSsim(false)},
      {"ssim host", 1920, 1080, 8, IntegerSsim(true), true},
      {"ssim exact", 1920, 1080, 8, IntegerSsim(true)},
      {"ssim fast", 3840, 2160, 8, IntegerSsim(false)},
      {"ssim host", 3840, 2160, 8, IntegerSsim(true), true},
      {"ssim exact", 3840, 2160, 8, IntegerSsim(true)},
  };
  std::printf("%-11s %-10s %4s | %12s %12s %12s %12s %12s %12s | %12s\n", "feature", "size",
              "bit", "device us", "device min", "upload us", "readback us", "host us", "total us",
              "cpu us");
  for (const Case& c : cases) {
    const Planes planes(c.width, c.height, c.bit_depth);
    std::vector<double> compute, upload, readback, host, total, cpu_total;
    hooks->exact_sum_on_host = c.exact_sum_on_host;
    for (int i = 0; i < frames + 3; ++i) {
      auto r = (*gpu)->Score(planes.geometry, c.features, planes.pair());
      if (!r.ok()) {
        std::printf("%s %dx%d failed: %s\n", c.name, c.width, c.height,
                    std::string(r.status().message()).c_str());
        return 1;
      }
      if (i < 3) continue;  // warm-up: first-use allocations
      compute.push_back(r->timings.compute * 1e6);
      upload.push_back(r->timings.upload * 1e6);
      readback.push_back(r->timings.readback * 1e6);
      host.push_back(r->timings.host_finish * 1e6);
      total.push_back(r->timings.total * 1e6);
    }
    for (int i = 0; i < 3; ++i) {
      auto r = cpu->Score(planes.geometry, c.features, planes.pair());
      if (r.ok()) cpu_total.push_back(r->timings.total * 1e6);
    }
    char size[32];
    std::snprintf(size, sizeof(size), "%dx%d", c.width, c.height);
    std::printf("%-11s %-10s %4d | %12.1f %12.1f %12.1f %12.1f %12.1f %12.1f | %12.0f\n", c.name,
                size, c.bit_depth, Median(compute),
                *std::min_element(compute.begin(), compute.end()), Median(upload),
                Median(readback), Median(host), Median(total), Median(cpu_total));
  }

  // Throughput: 4 stream slots, 8 client threads; ssim alone and float_ssim + ssim, with ssim's
  // frame sum in block order, exact on the host and exact on the device.
  GpuOptions shared;
  shared.streams_per_device = 4;
  auto pool_hooks = std::make_shared<GpuTestHooks>();
  auto pool = MakeGpuScorerWithHooks(shared, pool_hooks);
  if (!pool.ok()) return 1;
  struct Mode {
    const char* name;
    bool exact, on_host;
  };
  const Mode modes[] = {{"fast", false, false}, {"host", true, true}, {"exact", true, false}};
  for (auto [w, h] : {std::pair{1920, 1080}, {3840, 2160}}) {
    const Planes planes(w, h, 8);
    for (bool with_float : {false, true}) {
      for (const Mode& mode : modes) {
        FeatureSet features = with_float ? FloatSsimAuto() : FeatureSet{};
        features.ssim = IntegerSsimOptions{};
        features.ssim->exact = mode.exact;
        pool_hooks->exact_sum_on_host = mode.on_host;
        std::atomic<int> done{0};
        const auto start = std::chrono::steady_clock::now();
        const auto until = start + std::chrono::seconds(2);
        std::vector<std::thread> threads;
        for (int t = 0; t < 8; ++t) {
          threads.emplace_back([&] {
            while (std::chrono::steady_clock::now() < until) {
              if ((*pool)->Score(planes.geometry, features, planes.pair()).ok()) ++done;
            }
          });
        }
        for (auto& t : threads) t.join();
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        std::printf("throughput %dx%d 8-bit %s (ssim %s), 8 threads on 4 slots: %.0f frames/s\n",
                    w, h, with_float ? "float_ssim+ssim" : "ssim", mode.name, done / seconds);
      }
    }
  }
  int64_t fallbacks = 0;
  for (const auto* scorer : {gpu->get(), pool->get()}) {
    for (const GpuDeviceStats& s : scorer->Stats()) {
      fallbacks += s.ssim_exact_fallbacks_serial_budget + s.ssim_exact_fallbacks_check_failed;
    }
  }
  std::printf("exact ssim sums that fell back to the host: %lld\n",
              static_cast<long long>(fallbacks));
  return 0;
}

}  // namespace
}  // namespace ssimd

int main(int argc, char** argv) {
  const int frames = argc > 1 ? std::max(1, std::atoi(argv[1])) : 50;
  return ssimd::Run(frames);
}
