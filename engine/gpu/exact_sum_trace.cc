// Where the exact sum's kernel spends its time (kernels/exact_sum_kernels.hip, docs/adr/0022):
// on ssim-like terms at 1080p and 4K, the kernel's time per launch from events, then one traced
// launch's per-block stages (ticket, approximate running sum, grid, for ordered blocks the run's
// combination and the plan, done) against the kernel's start: how many blocks ran at once, when
// each stage finished across the frame, and which blocks waited longest. A benchmark for a GPU
// machine, not a test.
//   exact_sum_trace [launches]
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "engine/gpu/ssim_like_terms.h"
#include "kernels/exact_sum_kernels.h"
#include "kernels/hip_portability.h"

namespace ssimd {
namespace {

#define CHECK_HIP(expr)                                                          \
  do {                                                                           \
    const hipError_t e = (expr);                                                 \
    if (e != hipSuccess) {                                                       \
      std::fprintf(stderr, "%s failed: %s\n", #expr, hipGetErrorString(e));      \
      std::exit(1);                                                              \
    }                                                                            \
  } while (0)

double Quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[static_cast<size_t>(q * (v.size() - 1))];
}

void Trace(int width, int height, int launches) {
  const std::vector<double> terms = SsimLikeTerms(static_cast<size_t>(width) * height, static_cast<uint64_t>(width) * height);
  const int64_t count = static_cast<int64_t>(terms.size());
  const int64_t blocks = (count + kExactSumBlockTerms - 1) / kExactSumBlockTerms;
  double* d_terms = nullptr;
  void* workspace = nullptr;
  uint64_t* d_trace = nullptr;
  const size_t trace_values = static_cast<size_t>(blocks) * (kTraceStages + 1);
  CHECK_HIP(hipMalloc(reinterpret_cast<void**>(&d_terms), terms.size() * sizeof(double)));
  CHECK_HIP(hipMalloc(&workspace, ExactSumWorkspaceBytes(count)));
  CHECK_HIP(hipMalloc(reinterpret_cast<void**>(&d_trace), trace_values * sizeof(uint64_t)));
  CHECK_HIP(hipMemcpy(d_terms, terms.data(), terms.size() * sizeof(double),
                      hipMemcpyHostToDevice));
  hipEvent_t begin, end;
  CHECK_HIP(hipEventCreate(&begin));
  CHECK_HIP(hipEventCreate(&end));
  CHECK_HIP(LaunchExactSerialSum(d_terms, count, workspace, nullptr));  // warm-up
  std::vector<double> us;
  for (int i = 0; i < launches; ++i) {
    CHECK_HIP(hipEventRecord(begin, nullptr));
    CHECK_HIP(LaunchExactSerialSum(d_terms, count, workspace, nullptr));
    CHECK_HIP(hipEventRecord(end, nullptr));
    CHECK_HIP(hipEventSynchronize(end));
    float ms = 0;
    CHECK_HIP(hipEventElapsedTime(&ms, begin, end));
    us.push_back(ms * 1000.0);
  }
  ExactSumOutcome outcome{};
  CHECK_HIP(hipMemcpy(&outcome, ExactSumOutcomeIn(workspace), sizeof(outcome),
                      hipMemcpyDeviceToHost));
  double serial = 0.0;
  for (double t : terms) serial += t;
  std::printf("%dx%d: %lld blocks; memset + kernel per launch (events, %d launches): median %.1f "
              "us, min %.1f us; fallback %d, ordered blocks %d, serial terms %lld, sum %s\n",
              width, height, static_cast<long long>(blocks), launches, Quantile(us, 0.5),
              Quantile(us, 0.0), outcome.fallback, outcome.ordered_blocks,
              static_cast<long long>(outcome.serial_terms),
              outcome.fallback != 0 ? "from the host" : (outcome.sum == serial ? "exact" : "WRONG"));
  CHECK_HIP(hipMemset(d_trace, 0, trace_values * sizeof(uint64_t)));  // unreached stamps read 0
  CHECK_HIP(LaunchExactSerialSumTraced(d_terms, count, workspace, d_trace, nullptr));
  std::vector<uint64_t> trace(trace_values);
  CHECK_HIP(hipMemcpy(trace.data(), d_trace, trace_values * sizeof(uint64_t),
                      hipMemcpyDeviceToHost));
  uint64_t origin = UINT64_MAX;
  for (int64_t b = 0; b < blocks; ++b) origin = std::min(origin, trace[b * kTraceStages]);
  auto at = [&](int64_t b, int stage) {
    return (static_cast<double>(trace[b * kTraceStages + stage]) - static_cast<double>(origin)) /
           1000.0;
  };
  // How long block b took from publishing its grid to leaving.
  auto waited = [&](int64_t b) { return at(b, kTraceDone) - at(b, kTraceGridKnown); };
  // Blocks running at once: the most intervals [started, done] that overlap.
  std::vector<std::pair<double, int>> edges;
  std::vector<double> waits;
  for (int64_t b = 0; b < blocks; ++b) {
    edges.push_back({at(b, kTraceStarted), 1});
    edges.push_back({at(b, kTraceDone), -1});
    waits.push_back(waited(b));
  }
  std::sort(edges.begin(), edges.end());
  int running = 0;
  int most = 0;
  for (const auto& [t, d] : edges) most = std::max(most, running += d);
  std::vector<double> done;
  for (int64_t b = 0; b < blocks; ++b) done.push_back(at(b, kTraceDone));
  std::printf("  traced: span %.1f us, at most %d blocks at once; done: 50%% by %.1f us, 90%% by "
              "%.1f us, last at %.1f us; wait after grid known: median %.2f us, max %.1f us\n",
              Quantile(done, 1.0), most, Quantile(done, 0.5), Quantile(done, 0.9),
              Quantile(done, 1.0), Quantile(waits, 0.5), Quantile(waits, 1.0));
  // A block's stamps as one line; "-" for a stage it does not pass (members combine no run).
  const auto stages = [&](int64_t b) {
    std::string line;
    char cell[16];
    for (int stage = 0; stage < kTraceStages; ++stage) {
      if (trace[b * kTraceStages + stage] == 0) {
        std::snprintf(cell, sizeof(cell), " %7s", "-");
      } else {
        std::snprintf(cell, sizeof(cell), " %7.2f", at(b, stage));
      }
      line += cell;
    }
    return line;
  };
  std::printf("  block: started approx grid run planned done (us from the first start), "
              "multiprocessor\n");
  const int64_t step = std::max<int64_t>(1, blocks / 24);
  for (int64_t b = 0; b < blocks; b += step) {
    std::printf("  %5lld:%s  sm %llu\n", static_cast<long long>(b), stages(b).c_str(),
                static_cast<unsigned long long>(trace[blocks * kTraceStages + b]));
  }
  std::vector<int64_t> order(static_cast<size_t>(blocks));
  for (int64_t b = 0; b < blocks; ++b) order[b] = b;
  std::sort(order.begin(), order.end(),
            [&](int64_t x, int64_t y) { return waited(x) > waited(y); });
  std::printf("  longest waits after the grid was known:\n");
  for (size_t k = 0; k < std::min<size_t>(16, order.size()); ++k) {
    const int64_t b = order[k];
    std::printf("  %5lld:%s  waited %.2f\n", static_cast<long long>(b), stages(b).c_str(),
                waited(b));
  }
  (void)hipFree(d_terms);
  (void)hipFree(workspace);
  (void)hipFree(d_trace);
}

}  // namespace
}  // namespace ssimd

int main(int argc, char** argv) {
  const int launches = argc > 1 ? std::max(1, std::atoi(argv[1])) : 20;
  int devices = 0;
  if (hipGetDeviceCount(&devices) != hipSuccess || devices == 0) {
    std::printf("no GPU: nothing to trace\n");
    return 0;
  }
  ssimd::Trace(1920, 1080, launches);
  ssimd::Trace(3840, 2160, launches);
  return 0;
}
