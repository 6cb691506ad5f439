#include "bench/engine_cells.h"

#include <atomic>
#include <chrono>
#include <thread>

#include "absl/strings/str_join.h"
#include "bench/process_cpu.h"

namespace ssimd::bench {
namespace {

using Clock = std::chrono::steady_clock;

double SecondsBetween(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

Clock::duration FromSeconds(double s) {
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
}

// What one feeding thread saw inside the window.
struct ThreadTally {
  int64_t pairs = 0;
  std::vector<double> latency, upload, compute, readback, queue_wait;
  ScoreCheck check;
  std::string error;
};

}  // namespace

std::string FeatureLabel(const FeatureSet& features) {
  return absl::StrJoin(FormatFeatureArgs(features), " ");
}

absl::StatusOr<std::vector<FrameScores>> ReferenceScores(Scorer& cpu, const FrameSet& frames,
                                                         const FeatureSet& features) {
  std::vector<FrameScores> out;
  for (int i = 0; i < frames.size(); ++i) {
    absl::StatusOr<ScoreResult> r = cpu.Score(frames.geometry, features, frames.Pair(i));
    if (!r.ok()) return r.status();
    out.push_back(std::move(r->scores));
  }
  return out;
}

CellResult RunEngineCell(const EngineCellSpec& spec) {
  CellResult cell;
  cell.section = spec.section;
  cell.backend = spec.backend;
  cell.width = spec.frames->geometry.width;
  cell.height = spec.frames->geometry.height;
  cell.bit_depth = spec.frames->geometry.bit_depth;
  cell.concurrency = spec.threads;
  cell.gpu_slots = spec.gpu_slots;
  cell.features = FeatureLabel(spec.features);

  const Clock::time_point start = Clock::now();
  const Clock::time_point window_start = start + FromSeconds(spec.timing.warmup_seconds);
  const Clock::time_point window_end = window_start + FromSeconds(spec.timing.measure_seconds);
  std::vector<ThreadTally> tallies(spec.threads);
  std::atomic<bool> failed{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < spec.threads; ++t) {
    threads.emplace_back([&, t] {
      ThreadTally& tally = tallies[t];
      // Threads start on different pairs so that they do not all read the same planes at once.
      for (int64_t k = t; !failed.load(std::memory_order_relaxed); k += spec.threads) {
        const Clock::time_point begin = Clock::now();
        if (begin >= window_end) break;
        const int frame = static_cast<int>(k % spec.frames->size());
        absl::StatusOr<ScoreResult> r =
            spec.scorer->Score(spec.frames->geometry, spec.features, spec.frames->Pair(frame));
        const Clock::time_point end = Clock::now();
        if (!r.ok()) {
          tally.error = std::string(r.status().message());
          failed.store(true);
          break;
        }
        tally.check.Compare(r->scores, (*spec.expected)[frame], k);
        if (end < window_start || end > window_end) continue;
        ++tally.pairs;
        tally.latency.push_back(SecondsBetween(begin, end));
        tally.upload.push_back(r->timings.upload);
        tally.compute.push_back(r->timings.compute);
        tally.readback.push_back(r->timings.readback);
        tally.queue_wait.push_back(r->timings.queue_wait);
      }
    });
  }
  std::this_thread::sleep_until(window_start);
  const double cpu_before = ProcessCpuSeconds(0);
  std::this_thread::sleep_until(window_end);
  const double cpu_after = ProcessCpuSeconds(0);
  for (std::thread& t : threads) t.join();

  std::vector<double> latency, upload, compute, readback, queue_wait;
  for (ThreadTally& tally : tallies) {
    cell.pairs += tally.pairs;
    cell.check.Merge(tally.check);
    if (cell.error.empty()) cell.error = tally.error;
    latency.insert(latency.end(), tally.latency.begin(), tally.latency.end());
    upload.insert(upload.end(), tally.upload.begin(), tally.upload.end());
    compute.insert(compute.end(), tally.compute.begin(), tally.compute.end());
    readback.insert(readback.end(), tally.readback.begin(), tally.readback.end());
    queue_wait.insert(queue_wait.end(), tally.queue_wait.begin(), tally.queue_wait.end());
  }
  cell.seconds = spec.timing.measure_seconds;
  SetRates(cell, spec.frames->PairBytes());
  SetLatencies(cell, latency);
  cell.upload_ms = Percentile(upload, 50) * 1e3;
  cell.compute_ms = Percentile(compute, 50) * 1e3;
  cell.readback_ms = Percentile(readback, 50) * 1e3;
  cell.queue_wait_ms = Percentile(queue_wait, 50) * 1e3;
  if (cpu_before >= 0 && cpu_after >= 0) {
    cell.client_cores = (cpu_after - cpu_before) / spec.timing.measure_seconds;
  }
  return cell;
}

}  // namespace ssimd::bench
