// What one benchmark cell measured, and the arithmetic that turns raw samples into it.
#ifndef SSIMD_BENCH_STATS_H_
#define SSIMD_BENCH_STATS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "engine/features.h"

namespace ssimd::bench {

// Percentile by linear interpolation between closest ranks (p in 0..100); 0 for no samples.
double Percentile(std::vector<double> samples, double p);

// Frames checked against the CPU engine's scores and how far they were off.
struct ScoreCheck {
  int64_t checked = 0;
  int64_t mismatched = 0;      // any metric not bit-identical (NaN equals NaN)
  double max_abs_diff = 0;
  std::string first_mismatch;  // e.g. "frame 3 float_ssim: 0.9731 vs 0.9732"

  void Compare(const FrameScores& got, const FrameScores& expected, int64_t frame);
  void Merge(const ScoreCheck& other);
};

// One cell of the benchmark: a section, a backend, a geometry and a concurrency.
struct CellResult {
  std::string section;   // "device", "engine", "e2e" or "unary"
  std::string backend;   // "gpu" or "cpu"
  int width = 0;
  int height = 0;
  int bit_depth = 8;
  int concurrency = 1;   // engine: feeding threads; e2e: streams; unary: calls at once
  int gpu_slots = 0;     // GPU stream slots per device (0 for the CPU)
  std::string features;

  int64_t pairs = 0;     // pairs completed inside the measured window
  double seconds = 0;    // length of the measured window
  double pairs_per_second = 0;
  double gb_per_second = 0;  // luma bytes ingested, 1e9 bytes per second
  double latency_p50_ms = 0;
  double latency_p99_ms = 0;
  // Engine stage medians per frame as the backend reported them (GPU: device events).
  double upload_ms = 0;
  double compute_ms = 0;
  double readback_ms = 0;
  double queue_wait_ms = 0;
  // Processor time over the window, in cores (1.0 = one core busy throughout).
  double client_cores = 0;
  double server_cores = 0;
  ScoreCheck check;
  std::string error;     // why the cell failed or was skipped; empty when it ran
  bool skipped = false;
};

// Fills pairs_per_second and gb_per_second from pairs, seconds and the bytes of one pair.
void SetRates(CellResult& cell, size_t pair_bytes);
// Fills the latency percentiles from per-pair latencies in seconds.
void SetLatencies(CellResult& cell, const std::vector<double>& latency_seconds);

// "1920x1080 8-bit"
std::string GeometryLabel(const CellResult& cell);

}  // namespace ssimd::bench

#endif  // SSIMD_BENCH_STATS_H_
