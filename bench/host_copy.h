// The host's single-thread copy rate: the unit cost of every copy on the ingest path (a frame's
// bytes from the gRPC buffer to a protobuf string, from that string to pinned staging).
#ifndef SSIMD_BENCH_HOST_COPY_H_
#define SSIMD_BENCH_HOST_COPY_H_

#include <cstddef>

namespace ssimd::bench {

// GB/s (1e9 bytes copied per second) of memcpy between two `bytes`-sized buffers, median of
// `repeats`. `fresh_destination` allocates the destination anew each time, as a protobuf string
// per frame is, so page faults and the kernel's page zeroing count too.
double HostCopyGbPerSecond(size_t bytes, int repeats, bool fresh_destination);

}  // namespace ssimd::bench

#endif  // SSIMD_BENCH_HOST_COPY_H_
