// End-to-end cells over loopback gRPC through the C++ client library: N concurrent ScoreClip
// streams, each on its own connection, or back-to-back unary ScorePair calls.
#ifndef SSIMD_BENCH_GRPC_CELLS_H_
#define SSIMD_BENCH_GRPC_CELLS_H_

#include <sys/types.h>

#include <string>
#include <vector>

#include "bench/engine_cells.h"
#include "bench/stats.h"
#include "bench/synthetic_frames.h"
#include "engine/features.h"
#include "proto/ssimd/v1/ssimd.pb.h"

namespace ssimd::bench {

struct GrpcCellSpec {
  std::string target;        // host:port of the server
  pid_t server_pid = 0;      // for the server's processor time; 0 when not ours
  v1::Backend backend = v1::BACKEND_CPU;
  int gpu_slots = 0;         // as the server was started, for the report
  const FrameSet* frames = nullptr;
  const std::vector<FrameScores>* expected = nullptr;
  FeatureSet features;
  int concurrency = 1;       // streams (ScoreClip) or calls at once (ScorePair)
  // One TCP connection per stream (as separate clients would have) or all streams on one.
  bool connection_per_stream = true;
  CellTiming timing;
};

// ScoreClip: each stream sends frames until the window ends, then half-closes and drains.
// Latency is from handing a frame to the client library to receiving its result.
CellResult RunStreamCell(const GrpcCellSpec& spec);

// ScorePair: `concurrency` threads each issue one call at a time.
CellResult RunUnaryCell(const GrpcCellSpec& spec);

}  // namespace ssimd::bench

#endif  // SSIMD_BENCH_GRPC_CELLS_H_
