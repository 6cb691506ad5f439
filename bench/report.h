// The benchmark's outputs: JSON for machines, a table for people, GPU/CPU ratios, and the
// issue's throughput targets checked against the measured cells.
#ifndef SSIMD_BENCH_REPORT_H_
#define SSIMD_BENCH_REPORT_H_

#include <string>
#include <utility>
#include <vector>

#include "bench/stats.h"

namespace ssimd::bench {

// A GPU cell beside the CPU cell of the same section, geometry and concurrency.
struct Ratio {
  std::string section;
  std::string geometry;  // GeometryLabel
  int concurrency = 0;
  double gpu_pairs_per_second = 0;
  double cpu_pairs_per_second = 0;
  double ratio = 0;  // gpu / cpu
};

std::vector<Ratio> GpuCpuRatios(const std::vector<CellResult>& cells);

// One of the service's throughput targets and whether the run met it.
struct TargetCheck {
  std::string name;      // e.g. "e2e 8 streams 1920x1080 8-bit"
  std::string target;    // e.g. ">= 2000 pairs/s"
  double measured = 0;
  std::string unit;
  bool measured_at_all = false;  // false when the run had no such cell (e.g. no GPU)
  bool met = false;
};

// The targets on one H200 machine: end-to-end 8 streams 1080p 8-bit >= 2000 pairs/s and 4K 8-bit
// >= 400 pairs/s; the engine from memory >= `engine_gb_target` GB/s of luma (half the measured
// pinned PCIe bandwidth); unary 1080p p50 <= 3 ms; GPU >= 5x CPU end-to-end at 8 streams.
std::vector<TargetCheck> CheckTargets(const std::vector<CellResult>& cells,
                                      double engine_gb_target);

// Free-form facts about the run (command, host, devices), written as JSON strings.
using RunInfo = std::vector<std::pair<std::string, std::string>>;

std::string ToJson(const RunInfo& info, const std::vector<CellResult>& cells,
                   const std::vector<Ratio>& ratios, const std::vector<TargetCheck>& targets);
std::string ToTable(const RunInfo& info, const std::vector<CellResult>& cells,
                    const std::vector<Ratio>& ratios, const std::vector<TargetCheck>& targets);

}  // namespace ssimd::bench

#endif  // SSIMD_BENCH_REPORT_H_
