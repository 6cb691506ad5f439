// Host entry point of the exact serial sum on the device (kernels/exact_sum_kernels.hip): the
// binary64 sum of per-pixel terms in index order, bit for bit as libvmaf's serial loop adds them,
// without reading the terms back (kernels/exact_sum_math.h, docs/adr/0022).
#ifndef SSIMD_KERNELS_EXACT_SUM_KERNELS_H_
#define SSIMD_KERNELS_EXACT_SUM_KERNELS_H_

#include <cstddef>
#include <cstdint>

#include "kernels/hip_portability.h"  // first: it defines __host__ and __device__ for AMD
#include "kernels/exact_sum_math.h"

namespace ssimd {

// Device scratch that LaunchExactSerialSum needs for `count` terms. The ExactSumOutcome is at its
// start (ExactSumOutcomeIn).
size_t ExactSumWorkspaceBytes(int64_t count);

inline ExactSumOutcome* ExactSumOutcomeIn(void* workspace) {
  return static_cast<ExactSumOutcome*>(workspace);
}

// Enqueues, on `stream`, a memset of the workspace's flags and one kernel (one block per
// kExactSumBlockTerms terms, chained by decoupled look-backs), which writes the ExactSumOutcome at
// the start of `workspace`. `terms` and `workspace` are device memory; count >= 1. Launches on one
// workspace must be ordered (one stream).
hipError_t LaunchExactSerialSum(const double* terms, int64_t count, void* workspace,
                                hipStream_t stream);

// Stages of a block that LaunchExactSerialSumTraced stamps, in this order.
enum ExactSumTraceStage : int {
  kTraceStarted = 0,       // the block has its ticket
  kTraceApproxDone = 1,    // its approximate running sum is published
  kTraceGridKnown = 2,     // its grid is published
  kTraceRunCombined = 3,   // (ordered blocks and the last) the run before it is combined
  kTracePlanned = 4,       // (ordered blocks and the last) its exact stage is planned
  kTraceDone = 5,          // it left: its run piece or its exact sum is published
  kTraceStages = 6,
};

// LaunchExactSerialSum that also writes, for the block with ticket b, the device's nanosecond
// clock at each stage to trace[b * kTraceStages + stage], and its multiprocessor to
// trace[blocks * kTraceStages + b] (`trace` holds (kTraceStages + 1) * blocks values, blocks =
// ceil(count / kExactSumBlockTerms); a stage a block does not pass is left as it was). For
// benchmarks that look at where the time goes (on NVIDIA: AMD's stamps are per compute unit
// counters).
hipError_t LaunchExactSerialSumTraced(const double* terms, int64_t count, void* workspace,
                                      uint64_t* trace, hipStream_t stream);

}  // namespace ssimd

#endif  // SSIMD_KERNELS_EXACT_SUM_KERNELS_H_
