// Watches the server process from outside: liveness and resident memory from /proc, and whether
// the memory stayed flat after warm-up.
#ifndef SSIMD_TOOLS_FAULT_LOAD_PROCESS_WATCH_H_
#define SSIMD_TOOLS_FAULT_LOAD_PROCESS_WATCH_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace ssimd::fault_load {

// VmRSS in KiB from the text of /proc/<pid>/status; INVALID_ARGUMENT when the line is missing.
absl::StatusOr<int64_t> ParseVmRssKb(absl::string_view status_text);
// NOT_FOUND when the process is gone.
absl::StatusOr<int64_t> ReadVmRssKb(int pid);
// The same for VmHWM, the peak of VmRSS over the process's life as the kernel tracks it.
absl::StatusOr<int64_t> ParseVmHwmKb(absl::string_view status_text);
absl::StatusOr<int64_t> ReadVmHwmKb(int pid);
// True while the process exists and is not a zombie.
bool ProcessAlive(int pid);

// Device memory of `pid` in MiB from the output of
// `nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader,nounits` (summed over its
// lines for that process, one per GPU); NOT_FOUND when the process holds no device memory.
absl::StatusOr<int64_t> ParseNvidiaSmiUsedMib(absl::string_view text, int pid);
// Runs that nvidia-smi query; UNAVAILABLE when nvidia-smi cannot run.
absl::StatusOr<int64_t> ReadGpuMemoryMib(int pid);

struct RssSample {
  double seconds = 0;  // since the start of the run
  int64_t kb = 0;
};

struct RssGrowth {
  bool measured = false;  // false: too few samples after warm-up to say
  int64_t baseline_kb = 0;
  int64_t final_kb = 0;
  int64_t peak_kb = 0;
  double growth_pct = 0;
  int samples = 0;  // after warm-up
  // Every sample's KiB over the whole run, thinned to at most 120 points, to see whether growth
  // levels off (allocator caches) or keeps climbing (a leak).
  std::vector<int64_t> series;
};

// Compares the median of the first quarter of the samples after `warmup_seconds` with the median
// of the last quarter. Medians, because glibc's malloc makes resident memory swing by 20-40% from
// second to second under this load (docs/adr/0051): a leak still shows as a higher last quarter.
// Needs at least 4 samples after warm-up.
RssGrowth ComputeRssGrowth(const std::vector<RssSample>& samples, double warmup_seconds);

}  // namespace ssimd::fault_load

#endif  // SSIMD_TOOLS_FAULT_LOAD_PROCESS_WATCH_H_
