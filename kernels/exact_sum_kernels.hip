// The exact serial sum on the device: every step is a function of kernels/exact_sum_math.h, the
// lines the host model (engine/gpu/exact_sum.cc) and its tests run; only the parallel orchestration
// lives here.
#include <cstddef>
#include <cstdint>

#include "kernels/hip_portability.h"  // first: it defines __host__ and __device__ for AMD
#include "kernels/exact_sum_kernels.h"
#include "kernels/exact_sum_math.h"
#include "kernels/lane_group.h"

namespace ssimd {
namespace {

constexpr int kPlanThreads = 1024;
// Segments per thread in each of the plan's tiles (kPlanThreads * kPlanPerThread segments).
constexpr int kPlanPerThread = 8;
constexpr size_t kAlign = 256;

size_t AlignUp(size_t bytes) { return (bytes + kAlign - 1) / kAlign * kAlign; }

int32_t SegmentCount(int64_t count) {
  return static_cast<int32_t>((count + kExactSumSegmentTerms - 1) / kExactSumSegmentTerms);
}

int32_t SegmentBlocks(int64_t count) {
  return (SegmentCount(count) + kExactSumSegmentsPerBlock - 1) / kExactSumSegmentsPerBlock;
}

// Where each array lives in the workspace.
struct Layout {
  ExactSumOutcome* outcome;
  double* segment_sums;  // per segment: sum, sum of |t|
  double* segment_starts;  // per segment: the approximate running sum before it
  double* margin;          // ExactSumMargin of the frame
  int32_t* grids;
  ExactSumPiece* segment_pieces;
  ExactSumPiece* block_pieces;
  ExactSumRun* runs;
  int32_t* run_count;
  ExactSumPiece* run_pieces;
  int32_t* run_merges;          // per run: RunMerges
  ExactSumCrossing* crossings;  // per segment; written for serial segments
  size_t bytes;
};

Layout LayoutFor(void* workspace, int64_t count) {
  const size_t segments = static_cast<size_t>(SegmentCount(count));
  char* base = static_cast<char*>(workspace);
  size_t offset = 0;
  Layout l;
  auto take = [&](size_t bytes) {
    char* p = base == nullptr ? nullptr : base + offset;
    offset += AlignUp(bytes);
    return p;
  };
  l.outcome = reinterpret_cast<ExactSumOutcome*>(take(sizeof(ExactSumOutcome)));
  l.segment_sums = reinterpret_cast<double*>(take(2 * segments * sizeof(double)));
  l.segment_starts = reinterpret_cast<double*>(take(segments * sizeof(double)));
  l.margin = reinterpret_cast<double*>(take(sizeof(double)));
  l.grids = reinterpret_cast<int32_t*>(take(segments * sizeof(int32_t)));
  l.segment_pieces = reinterpret_cast<ExactSumPiece*>(take(segments * sizeof(ExactSumPiece)));
  l.block_pieces =
      reinterpret_cast<ExactSumPiece*>(take(SegmentBlocks(count) * sizeof(ExactSumPiece)));
  l.runs = reinterpret_cast<ExactSumRun*>(take(kExactSumMaxRuns * sizeof(ExactSumRun)));
  l.run_count = reinterpret_cast<int32_t*>(take(sizeof(int32_t)));
  l.run_pieces = reinterpret_cast<ExactSumPiece*>(take(kExactSumMaxRuns * sizeof(ExactSumPiece)));
  l.run_merges = reinterpret_cast<int32_t*>(take(kExactSumMaxRuns * sizeof(int32_t)));
  l.crossings = reinterpret_cast<ExactSumCrossing*>(take(segments * sizeof(ExactSumCrossing)));
  l.bytes = offset;
  return l;
}

constexpr int kSegmentBlockThreads = kExactSumSegmentsPerBlock * kExactSumGroupLanes;
static_assert(kExactSumGroupLanes == kLaneGroupWidth, "one lane group per segment");
static_assert(kPlanThreads % kLaneGroupWidth == 0 && kPlanThreads / kLaneGroupWidth <= 32,
              "the plan's scan combines at most one group of group totals");
static_assert(kExactSumRunThreads / kLaneGroupWidth == kLaneGroupWidth,
              "a run block's group results fill exactly one group");

// One group per segment: its approximate sum and sum of |t| (any order serves: they only guide
// the guess of the grid), lanes reading the segment's terms with a stride, as one coalesced row.
__global__ void __launch_bounds__(kSegmentBlockThreads)
    SegmentSums(const double* terms, int64_t count, int32_t segments, double* segment_sums) {
  const int32_t segment = blockIdx.x * kExactSumSegmentsPerBlock + GroupInBlock();
  if (segment >= segments) return;  // the whole group leaves
  const int lane = LaneInGroup();
  const int64_t base = static_cast<int64_t>(segment) * kExactSumSegmentTerms + lane;
  double sum = 0.0;
  double abs_sum = 0.0;
#pragma unroll
  for (int k = 0; k < kExactSumTermsPerLane; ++k) {
    const int64_t i = base + k * kExactSumGroupLanes;
    const double t = i < count ? terms[i] : 0.0;
    sum += t;
    abs_sum += fabs(t);
  }
  for (int offset = kLaneGroupWidth / 2; offset > 0; offset /= 2) {
    sum += ShuffleDownInGroup(sum, offset);
    abs_sum += ShuffleDownInGroup(abs_sum, offset);
  }
  if (lane == 0) {
    segment_sums[2 * segment] = sum;
    segment_sums[2 * segment + 1] = abs_sum;
  }
}

// Inclusive scan of one value per thread across the block: within groups by shuffles, then the
// group totals by the first group. `totals` holds one value per group.
template <typename T>
__device__ T InclusiveScan(T value, T* totals) {
  const int lane = LaneInGroup();
  const int group = GroupInBlock();
  for (int offset = 1; offset < kLaneGroupWidth; offset *= 2) {
    const T before = ShuffleUpInGroup(value, offset);
    if (lane >= offset) value += before;
  }
  if (lane == kLaneGroupWidth - 1) totals[group] = value;
  __syncthreads();
  if (group == 0) {
    constexpr int kGroups = kPlanThreads / kLaneGroupWidth;
    T total = lane < kGroups ? totals[lane] : T(0);
    for (int offset = 1; offset < kLaneGroupWidth; offset *= 2) {
      const T before = ShuffleUpInGroup(total, offset);
      if (lane >= offset) total += before;
    }
    if (lane < kGroups) totals[lane] = total;
  }
  __syncthreads();
  if (group > 0) value += totals[group - 1];
  __syncthreads();  // totals is free for the next scan
  return value;
}

// One block: the approximate running sum before each segment, each segment's guessed grid, and
// the runs (maximal stretches of one grid). The segment sums are read in tiles, each thread
// loading a contiguous share of kPlanPerThread segments into registers a tile ahead; scans carry
// the running sum and the run count across tiles.
__global__ void __launch_bounds__(kPlanThreads)
    PlanRuns(int64_t count, int32_t segments, const double* segment_sums, int32_t* grids,
             double* segment_starts, double* margin_out, ExactSumRun* runs, int32_t* run_count) {
  constexpr int kTile = kPlanThreads * kPlanPerThread;
  constexpr int32_t kNoGrid = INT32_MAX;  // past the last segment (serial is INT32_MIN)
  __shared__ int32_t last_grids[kPlanThreads];
  __shared__ double totals[kLaneGroupWidth];
  __shared__ int32_t int_totals[kLaneGroupWidth];
  __shared__ double carried_sum;
  __shared__ int32_t carried_runs;
  __shared__ int32_t carried_grid;
  const int tid = threadIdx.x;
  // The margin needs the total of |t| first: independent loads, eight in flight per thread.
  double abs_sum = 0.0;
  for (int32_t base = 0; base < segments; base += 8 * kPlanThreads) {
    double values[8];
#pragma unroll
    for (int k = 0; k < 8; ++k) {
      const int32_t j = base + k * kPlanThreads + tid;
      values[k] = j < segments ? segment_sums[2 * j + 1] : 0.0;
    }
#pragma unroll
    for (int k = 0; k < 8; ++k) abs_sum += values[k];
  }
  const double abs_through = InclusiveScan(abs_sum, totals);
  if (tid == kPlanThreads - 1) {
    carried_sum = abs_through;  // borrowed to pass the total to every thread
    carried_runs = 0;
    carried_grid = kNoGrid;
  }
  __syncthreads();
  const double margin = ExactSumMargin(count, carried_sum);
  if (tid == 0) *margin_out = margin;
  __syncthreads();
  if (tid == kPlanThreads - 1) carried_sum = 0.0;
  __syncthreads();
  // Each tile's loads are issued while the tile before it is being worked on.
  double loaded[kPlanPerThread];
#pragma unroll
  for (int k = 0; k < kPlanPerThread; ++k) {
    const int32_t j = tid * kPlanPerThread + k;
    loaded[k] = j < segments ? segment_sums[2 * j] : 0.0;
  }
  for (int32_t tile = 0; tile < segments; tile += kTile) {
    const int32_t first = tile + tid * kPlanPerThread;
    double own_sums[kPlanPerThread];
    double sum = 0.0;
#pragma unroll
    for (int k = 0; k < kPlanPerThread; ++k) {
      own_sums[k] = loaded[k];
      sum += own_sums[k];
      const int32_t j = first + kTile + k;
      loaded[k] = j < segments ? segment_sums[2 * j] : 0.0;
    }
    const double sum_through = InclusiveScan(sum, totals);
    const double carry_sum = carried_sum;
    const int32_t carry_runs = carried_runs;
    const int32_t carry_grid = carried_grid;
    double running = carry_sum + (sum_through - sum);
    int32_t own[kPlanPerThread];
#pragma unroll
    for (int k = 0; k < kPlanPerThread; ++k) {
      const int32_t j = first + k;
      const double start = running;
      running += own_sums[k];
      own[k] = j < segments ? GuessSegmentGrid(start, running, margin) : kNoGrid;
      if (j < segments) {
        grids[j] = own[k];
        // Only serial segments need it (their crossing summaries), and they are few.
        if (own[k] == kExactSumSerialGrid) segment_starts[j] = start;
      }
    }
    last_grids[tid] = own[kPlanPerThread - 1];
    __syncthreads();
    int32_t previous = tid == 0 ? carry_grid : last_grids[tid - 1];
    int32_t starts = 0;
    for (int k = 0; k < kPlanPerThread; ++k) {
      starts += (first + k < segments && own[k] != previous) ? 1 : 0;
      previous = own[k];
    }
    const int32_t starts_through = InclusiveScan(starts, int_totals);
    int32_t r = carry_runs + starts_through - starts;
    previous = tid == 0 ? carry_grid : last_grids[tid - 1];
    for (int k = 0; k < kPlanPerThread; ++k) {
      if (first + k < segments && own[k] != previous) {
        if (r < kExactSumMaxRuns) runs[r] = ExactSumRun{first + k, own[k]};
        ++r;
      }
      previous = own[k];
    }
    __syncthreads();  // every thread has read the carries and last_grids
    if (tid == kPlanThreads - 1) {
      carried_sum = carry_sum + sum_through;
      carried_runs = carry_runs + starts_through;
      carried_grid = own[kPlanPerThread - 1];
    }
    __syncthreads();
  }
  if (tid == 0) *run_count = carried_runs;
}

__device__ ExactSumPiece ShuffleDownPiece(const ExactSumPiece& piece, int delta) {
  ExactSumPiece out;
  for (int parity = 0; parity < 2; ++parity) {
    out.added[parity] = ShuffleDownInGroup<long long>(piece.added[parity], delta);
    out.lowest[parity] = ShuffleDownInGroup<long long>(piece.lowest[parity], delta);
    out.highest[parity] = ShuffleDownInGroup<long long>(piece.highest[parity], delta);
  }
  out.state = ShuffleDownInGroup(piece.state, delta);
  out.padding = 0;
  return out;
}

// A uniform piece (IsUniformExactSumPiece) moved between lanes: one half travels.
__device__ ExactSumPiece ShuffleDownUniformPiece(const ExactSumPiece& piece, int delta) {
  ExactSumPiece out;
  out.added[0] = out.added[1] = ShuffleDownInGroup<long long>(piece.added[0], delta);
  out.lowest[0] = out.lowest[1] = ShuffleDownInGroup<long long>(piece.lowest[0], delta);
  out.highest[0] = out.highest[1] = ShuffleDownInGroup<long long>(piece.highest[0], delta);
  out.state = ShuffleDownInGroup(piece.state, delta);
  out.padding = 0;
  return out;
}

// Combines one piece per lane in lane order, pairing neighbours with doubling distances (the
// tree CombineAsBlockTree models on the host); lane 0 returns the group's piece. When no lane's
// piece depends on the incoming parity (no exact tie anywhere, the usual case), one half of each
// piece travels and combines; the result is the same.
__device__ ExactSumPiece CombineGroup(ExactSumPiece piece) {
  const int lane = LaneInGroup();
  if (AllInGroup(IsUniformExactSumPiece(piece))) {
    for (int offset = 1; offset < kLaneGroupWidth; offset *= 2) {
      const ExactSumPiece next = ShuffleDownUniformPiece(piece, offset);
      if (lane % (2 * offset) == 0) piece = CombineUniformExactSumPieces(piece, next);
    }
    return piece;
  }
  for (int offset = 1; offset < kLaneGroupWidth; offset *= 2) {
    const ExactSumPiece next = ShuffleDownPiece(piece, offset);
    if (lane % (2 * offset) == 0) piece = CombineExactSumPieces(piece, next);
  }
  return piece;
}

// The group's smallest and largest of one int per lane, in every lane.
__device__ int GroupMin(int value) {
  for (int offset = kLaneGroupWidth / 2; offset > 0; offset /= 2) {
    value = min(value, ShuffleDownInGroup(value, offset));
  }
  return ValueOfLane(value, 0);
}
__device__ int GroupMax(int value) {
  for (int offset = kLaneGroupWidth / 2; offset > 0; offset /= 2) {
    value = max(value, ShuffleDownInGroup(value, offset));
  }
  return ValueOfLane(value, 0);
}

// A serial segment's crossing summary (ExactSumCrossing), by one lane group: each lane holds
// kExactSumTermsPerLane consecutive terms of the segment's n (0.0 past them); the plan's
// approximate sum before the segment plus a scan of the lanes' sums gives each term's approximate
// partial sum and so the grid certain for it; the group finds where the first grid ends and the
// last begins (PlaceCrossing) and folds the head and the tail as it folds a segment.
__device__ void SummariseCrossing(const double (&values)[kExactSumTermsPerLane], int n,
                                  double start, double margin, ExactSumCrossing* out) {
  const int lane = LaneInGroup();
  const int lane_first = lane * kExactSumTermsPerLane;
  double lane_sum = 0.0;
#pragma unroll
  for (int k = 0; k < kExactSumTermsPerLane; ++k) lane_sum += values[k];
  double through = lane_sum;
  for (int offset = 1; offset < kLaneGroupWidth; offset *= 2) {
    const double before = ShuffleUpInGroup(through, offset);
    if (lane >= offset) through += before;
  }
  double partial = start + (through - lane_sum);
  int32_t grids[kExactSumTermsPerLane];
#pragma unroll
  for (int k = 0; k < kExactSumTermsPerLane; ++k) {
    partial += values[k];
    grids[k] = CertainBinade(partial, margin);
  }
  const int32_t first_grid = ValueOfLane(grids[0], 0);
  const int last = n - 1;
  int32_t own_last = grids[0];
#pragma unroll
  for (int k = 1; k < kExactSumTermsPerLane; ++k) {
    own_last = k == last % kExactSumTermsPerLane ? grids[k] : own_last;
  }
  const int32_t last_grid = ValueOfLane(own_last, last / kExactSumTermsPerLane);
  int first_other = n;
  int last_other = 0;
#pragma unroll
  for (int k = 0; k < kExactSumTermsPerLane; ++k) {
    if (lane_first + k >= n) continue;
    if (grids[k] != first_grid) first_other = min(first_other, lane_first + k);
    if (grids[k] != last_grid) last_other = lane_first + k + 1;
  }
  first_other = GroupMin(first_other);
  last_other = GroupMax(last_other);
  ExactSumCrossing crossing;
  PlaceCrossing(CertainBinade(start, margin), first_grid, last_grid, first_other, last_other, n,
                &crossing);
  const auto within = [&](int i) { return min(max(i - lane_first, 0), kExactSumTermsPerLane); };
  crossing.head = EmptyExactSumPiece();
  crossing.tail = EmptyExactSumPiece();
  if (crossing.head_end > 0) {  // the same in every lane, as below
    crossing.head = CombineGroup(FoldExactSumTermRange(values, 0, within(crossing.head_end),
                                                       ExactSumGridScale(crossing.head_grid)));
  }
  if (crossing.tail_begin < n) {
    crossing.tail = CombineGroup(FoldExactSumTermRange(values, within(crossing.tail_begin),
                                                       within(n),
                                                       ExactSumGridScale(crossing.tail_grid)));
  }
  if (lane == 0) *out = crossing;
}

// Blocks of SegmentPieces that must fit on one multiprocessor at once: a register budget (64 per
// thread on NVIDIA) that the crossing summaries' code would otherwise exceed, costing occupancy on
// the kernel that reads every term. (HIP on AMD reads the bound as an occupancy hint too.)
constexpr int kSegmentPiecesBlocksPerSm = 4;

// One group per segment with a grid: each lane folds kExactSumTermsPerLane consecutive terms,
// the group combines the lanes. Then the block's first group combines the block's segment pieces
// into its block piece, which long runs use (valid when all of its segments share a grid). A group
// whose segment is serial summarises its crossing instead.
__global__ void __launch_bounds__(kSegmentBlockThreads, kSegmentPiecesBlocksPerSm)
    SegmentPieces(const double* terms, int64_t count, int32_t segments, const int32_t* grids,
                  const double* segment_starts, const double* margin,
                  ExactSumPiece* segment_pieces, ExactSumPiece* block_pieces,
                  ExactSumCrossing* crossings) {
  __shared__ ExactSumPiece pieces[kExactSumSegmentsPerBlock];
  __shared__ int32_t piece_grids[kExactSumSegmentsPerBlock];
  const int group = GroupInBlock();
  const int lane = LaneInGroup();
  const int32_t segment = blockIdx.x * kExactSumSegmentsPerBlock + group;
  const int32_t grid = segment < segments ? grids[segment] : kExactSumSerialGrid;
  // The block's terms, loaded coalesced, then read by each lane as its consecutive run. A lane's
  // run is stored one double apart from the next lane's, which keeps the lanes' reads on
  // distinct banks.
  constexpr int kLaneStride = kExactSumTermsPerLane + 1;
  __shared__ double staged[kExactSumSegmentsPerBlock * kExactSumGroupLanes * kLaneStride];
  const int64_t block_first = static_cast<int64_t>(blockIdx.x) * kSegmentBlockThreads *
                              kExactSumTermsPerLane;
#pragma unroll
  for (int k = 0; k < kExactSumTermsPerLane; ++k) {
    const int within = k * kSegmentBlockThreads + static_cast<int>(threadIdx.x);
    const int64_t i = block_first + within;
    staged[(within / kExactSumTermsPerLane) * kLaneStride + within % kExactSumTermsPerLane] =
        i < count ? terms[i] : 0.0;
  }
  __syncthreads();
  ExactSumPiece piece = EmptyExactSumPiece();
  const double* own = staged + static_cast<int>(threadIdx.x) * kLaneStride;
  double values[kExactSumTermsPerLane];
#pragma unroll
  for (int k = 0; k < kExactSumTermsPerLane; ++k) values[k] = own[k];
  if (grid != kExactSumSerialGrid) {  // the same for the whole group
    const int64_t first = static_cast<int64_t>(segment) * kExactSumSegmentTerms +
                          lane * kExactSumTermsPerLane;
    const int64_t left = count - first;
    const int n = left <= 0 ? 0 : (left < kExactSumTermsPerLane ? static_cast<int>(left)
                                                                 : kExactSumTermsPerLane);
    piece = CombineGroup(FoldExactSumTerms(values, n, ExactSumGridScale(grid)));
    if (lane == 0) segment_pieces[segment] = piece;
  } else if (segment < segments) {
    SummariseCrossing(values, ExactSumSegmentLength(count, segment), segment_starts[segment],
                      *margin, &crossings[segment]);
  }
  if (lane == 0) {
    pieces[group] = piece;
    piece_grids[group] = grid;
  }
  __syncthreads();
  if (group == 0) {
    const ExactSumPiece block =
        CombineGroup(lane < kExactSumSegmentsPerBlock ? pieces[lane] : EmptyExactSumPiece());
    if (lane == 0) {
      bool one_grid = piece_grids[0] != kExactSumSerialGrid;
      for (int g = 1; g < kExactSumSegmentsPerBlock; ++g) {
        one_grid &= piece_grids[g] == piece_grids[0];
      }
      block_pieces[blockIdx.x] = one_grid ? block : InvalidExactSumPiece();
    }
  }
}

// One block per run with a grid: its piece from its elements (segment and block pieces), each
// thread folding a contiguous share in order, then groups and the block's group results combined,
// and the crossing parts it merges (RunMerges) put before and after.
__global__ void __launch_bounds__(kExactSumRunThreads)
    RunPieces(int64_t term_count, int32_t segments, const ExactSumPiece* segment_pieces,
              const ExactSumPiece* block_pieces, const ExactSumRun* runs,
              const int32_t* run_count, const ExactSumCrossing* crossings,
              ExactSumPiece* run_pieces, int32_t* run_merges) {
  __shared__ ExactSumPiece group_pieces[kLaneGroupWidth];
  const int32_t r = blockIdx.x;
  const int32_t count = *run_count;
  if (count > kExactSumMaxRuns || r >= count || runs[r].grid == kExactSumSerialGrid) return;
  const int32_t first = runs[r].first_segment;
  const int32_t end = r + 1 < count ? runs[r + 1].first_segment : segments;
  const ExactSumRunElements elements = RunElementsOf(first, end);
  const int32_t n = RunElementCount(elements);
  const int32_t share = (n + kExactSumRunThreads - 1) / kExactSumRunThreads;
  const int32_t from = min(n, static_cast<int32_t>(threadIdx.x) * share);
  const int32_t to = min(n, from + share);
  ExactSumPiece piece = EmptyExactSumPiece();
  for (int32_t k = from; k < to; ++k) {
    piece = CombineExactSumPieces(piece,
                                  RunElementPiece(elements, k, segment_pieces, block_pieces));
  }
  piece = CombineGroup(piece);
  if (LaneInGroup() == 0) group_pieces[GroupInBlock()] = piece;
  __syncthreads();
  if (GroupInBlock() == 0) {
    piece = CombineGroup(group_pieces[LaneInGroup()]);
    if (LaneInGroup() == 0) {
      const ExactSumRunNeighbours neighbours =
          NeighboursOfRun(runs, count, r, segments, term_count, crossings);
      run_pieces[r] = MergedRunPiece(neighbours, piece);
      run_merges[r] = neighbours.merges;
    }
  }
}

// The chain's serial additions wait on memory one load at a time, so before its one thread
// starts, the whole block stages in shared memory what it will read: the runs and their pieces
// (up to kStagedRuns runs) and the terms of the serial runs' segments (binade crossings and the
// frame's start, up to kStagedSegments). Anything else is read where it lies.
constexpr int kChainThreads = 256;
constexpr int kStagedSegments = 16;
constexpr int kStagedRuns = 96;

// Segment terms from the staged copies where there is one (both lists rise with the segment, as
// the chain's requests do), else from the frame's terms.
struct StagedSegmentTerms {
  const double* terms;
  const ExactSumCrossing* crossings;
  const double* staged;
  const ExactSumCrossing* staged_crossings;
  const int32_t* staged_segments;
  int32_t staged_count;
  int32_t cursor;
  __device__ const double* Of(int32_t segment) {
    while (cursor < staged_count && staged_segments[cursor] < segment) ++cursor;
    if (cursor < staged_count && staged_segments[cursor] == segment) {
      return staged + cursor * kExactSumSegmentTerms;
    }
    return terms + static_cast<int64_t>(segment) * kExactSumSegmentTerms;
  }
  // The segment's crossing summary; called after Of() for the same segment.
  __device__ const ExactSumCrossing* CrossingOf(int32_t segment) const {
    if (cursor < staged_count && staged_segments[cursor] == segment) {
      return staged_crossings + cursor;
    }
    return crossings + segment;
  }
};

// One block, then one thread: the checked chain over runs.
__global__ void __launch_bounds__(kChainThreads)
    Chain(const double* terms, int64_t count, int32_t segments, const ExactSumRun* runs,
          const int32_t* run_count, const ExactSumPiece* run_pieces,
          const int32_t* run_merges, const ExactSumPiece* segment_pieces,
          const ExactSumCrossing* crossings, ExactSumOutcome* outcome) {
  __shared__ double staged[kStagedSegments * kExactSumSegmentTerms];
  __shared__ ExactSumCrossing staged_crossings[kStagedSegments];
  __shared__ int32_t staged_segments[kStagedSegments];
  __shared__ int32_t staged_count;
  __shared__ ExactSumRun staged_runs[kStagedRuns];
  __shared__ ExactSumPiece staged_pieces[kStagedRuns];
  __shared__ int32_t staged_merges[kStagedRuns];
  const int tid = threadIdx.x;
  const int32_t total_runs = *run_count;
  const bool runs_staged = total_runs <= kStagedRuns;
  if (runs_staged) {
    for (int r = tid; r < total_runs; r += kChainThreads) {
      staged_runs[r] = runs[r];
      staged_pieces[r] = run_pieces[r];
      staged_merges[r] = run_merges[r];
    }
  }
  __syncthreads();
  if (tid == 0) {
    const ExactSumRun* list = runs_staged ? staged_runs : runs;
    int32_t n = 0;
    // More runs than the list holds: the chain gives the frame back without reading anything.
    const int32_t listed = total_runs <= kExactSumMaxRuns ? total_runs : 0;
    for (int32_t r = 0; r < listed && n < kStagedSegments; ++r) {
      if (list[r].grid != kExactSumSerialGrid) continue;
      const int32_t end = r + 1 < listed ? list[r + 1].first_segment : segments;
      for (int32_t j = list[r].first_segment; j < end && n < kStagedSegments; ++j) {
        staged_segments[n++] = j;
      }
    }
    staged_count = n;
  }
  __syncthreads();
  for (int i = tid; i < staged_count * kExactSumSegmentTerms; i += kChainThreads) {
    const int64_t term = static_cast<int64_t>(staged_segments[i / kExactSumSegmentTerms]) *
                             kExactSumSegmentTerms +
                         i % kExactSumSegmentTerms;
    staged[i] = term < count ? terms[term] : 0.0;
  }
  for (int i = tid; i < staged_count; i += kChainThreads) {
    staged_crossings[i] = crossings[staged_segments[i]];
  }
  __syncthreads();
  if (tid != 0) return;
  StagedSegmentTerms source{terms, crossings, staged, staged_crossings, staged_segments,
                            staged_count, 0};
  *outcome = ChainExactSumRuns(source, count, runs_staged ? staged_runs : runs, total_runs,
                               segments, runs_staged ? staged_pieces : run_pieces,
                               runs_staged ? staged_merges : run_merges, segment_pieces);
}

}  // namespace

size_t ExactSumWorkspaceBytes(int64_t count) { return LayoutFor(nullptr, count).bytes; }

hipError_t LaunchExactSerialSum(const double* terms, int64_t count, void* workspace,
                                hipStream_t stream) {
  const int32_t segments = SegmentCount(count);
  const Layout l = LayoutFor(workspace, count);
  const int32_t blocks = SegmentBlocks(count);
  hipLaunchKernelGGL(SegmentSums, dim3(blocks), dim3(kSegmentBlockThreads), 0, stream, terms,
                     count, segments, l.segment_sums);
  hipLaunchKernelGGL(PlanRuns, dim3(1), dim3(kPlanThreads), 0, stream, count, segments,
                     l.segment_sums, l.grids, l.segment_starts, l.margin, l.runs, l.run_count);
  hipLaunchKernelGGL(SegmentPieces, dim3(blocks), dim3(kSegmentBlockThreads), 0, stream, terms,
                     count, segments, l.grids, l.segment_starts, l.margin, l.segment_pieces,
                     l.block_pieces, l.crossings);
  hipLaunchKernelGGL(RunPieces, dim3(kExactSumMaxRuns), dim3(kExactSumRunThreads), 0, stream,
                     count, segments, l.segment_pieces, l.block_pieces, l.runs, l.run_count,
                     l.crossings, l.run_pieces, l.run_merges);
  hipLaunchKernelGGL(Chain, dim3(1), dim3(kChainThreads), 0, stream, terms, count, segments,
                     l.runs, l.run_count, l.run_pieces, l.run_merges, l.segment_pieces,
                     l.crossings, l.outcome);
  return hipGetLastError();
}

}  // namespace ssimd
