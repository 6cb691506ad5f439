// Processor time a process has used so far, to say how many cores a cell kept busy.
#ifndef SSIMD_BENCH_PROCESS_CPU_H_
#define SSIMD_BENCH_PROCESS_CPU_H_

#include <sys/types.h>

namespace ssimd::bench {

// User plus system seconds of `pid` (0 = this process), from /proc; -1 when unreadable.
double ProcessCpuSeconds(pid_t pid);

}  // namespace ssimd::bench

#endif  // SSIMD_BENCH_PROCESS_CPU_H_
