// The exact serial sum on the device, in one pass: every step is a function of
// kernels/exact_sum_math.h, the lines the host model (engine/gpu/exact_sum.cc) and its tests run;
// only the parallel orchestration lives here (docs/adr/0022).
//
// Blocks take their place in the frame from a ticket, so every block a block waits for has
// started. Each block publishes, per stage, what its successors read: its approximate sum and
// then its approximate running sum; its block piece (or that it has none) and then its run's
// piece from the run's first block with the run's anchor; finally its exact running sum. Records
// are written, fenced, then flagged; readers see the flag, fence, then read the record with
// volatile loads (no stale cache line).
#include <cstddef>
#include <cstdint>

#include "kernels/hip_portability.h"  // first: it defines __host__ and __device__ for AMD
#include "kernels/exact_sum_kernels.h"
#include "kernels/exact_sum_math.h"
#include "kernels/lane_group.h"

namespace ssimd {
namespace {

constexpr size_t kAlign = 256;
constexpr int kBlockThreads = kExactSumSegmentsPerBlock * kExactSumGroupLanes;
static_assert(kExactSumGroupLanes == kLaneGroupWidth, "one lane group per segment");
static_assert(kExactSumSegmentsPerBlock <= kLaneGroupWidth, "one group combines the block");

size_t AlignUp(size_t bytes) { return (bytes + kAlign - 1) / kAlign * kAlign; }

int32_t BlockCount(int64_t count) {
  return static_cast<int32_t>((count + kExactSumBlockTerms - 1) / kExactSumBlockTerms);
}

// The approximate stage's flags.
constexpr int32_t kApproxAggregate = 1;
constexpr int32_t kApproxInclusive = 2;
// The exact stage's flags: the sum is known, or why it is not.
constexpr int32_t kExactKnown = 1;
constexpr int32_t kExactGaveUpBudget = 2;  // the serial budget ran out
constexpr int32_t kExactGaveUpCheck = 3;   // a run's piece did not fit its binade after all

// Where each array lives in the workspace. Everything up to `cleared_bytes` (the outcome, the
// ticket and the flags) is zeroed before each launch.
struct Layout {
  ExactSumOutcome* outcome;
  uint32_t* ticket;
  int32_t* approx_state;  // per block
  int32_t* piece_state;   // per block: kBlockNothingYet .. kBlockOrdered
  int32_t* exact_state;   // per block
  size_t cleared_bytes;
  double* approx;  // per block: its sum, its sum of |t|, the running sum and sum of |t| through it
  int32_t* block_grids;
  int32_t* anchors;  // per block of a run: the ordered block before the run, or -1
  ExactSumPiece* block_pieces;
  ExactSumPiece* run_pieces;
  double* exact;  // per ordered block: the exact running sum through it
  size_t bytes;
};

Layout LayoutFor(void* workspace, int64_t count) {
  const size_t blocks = static_cast<size_t>(BlockCount(count));
  char* base = static_cast<char*>(workspace);
  size_t offset = 0;
  Layout l;
  auto take = [&](size_t bytes) {
    char* p = base == nullptr ? nullptr : base + offset;
    offset += AlignUp(bytes);
    return p;
  };
  l.outcome = reinterpret_cast<ExactSumOutcome*>(take(sizeof(ExactSumOutcome)));
  l.ticket = reinterpret_cast<uint32_t*>(take(sizeof(uint32_t)));
  l.approx_state = reinterpret_cast<int32_t*>(take(blocks * sizeof(int32_t)));
  l.piece_state = reinterpret_cast<int32_t*>(take(blocks * sizeof(int32_t)));
  l.exact_state = reinterpret_cast<int32_t*>(take(blocks * sizeof(int32_t)));
  l.cleared_bytes = offset;
  l.approx = reinterpret_cast<double*>(take(4 * blocks * sizeof(double)));
  l.block_grids = reinterpret_cast<int32_t*>(take(blocks * sizeof(int32_t)));
  l.anchors = reinterpret_cast<int32_t*>(take(blocks * sizeof(int32_t)));
  l.block_pieces = reinterpret_cast<ExactSumPiece*>(take(blocks * sizeof(ExactSumPiece)));
  l.run_pieces = reinterpret_cast<ExactSumPiece*>(take(blocks * sizeof(ExactSumPiece)));
  l.exact = reinterpret_cast<double*>(take(blocks * sizeof(double)));
  l.bytes = offset;
  return l;
}

// Publishing and reading records across blocks.
__device__ void Publish(int32_t* flag, int32_t value) {
  __threadfence();  // the record before the flag
  *reinterpret_cast<volatile int32_t*>(flag) = value;
}

__device__ void PauseBriefly() {
#if defined(__HIPCC__)
  __builtin_amdgcn_s_sleep(1);
#else
  __nanosleep(100);
#endif
}

// The device's nanosecond clock and the block's multiprocessor, for traced launches.
__device__ uint64_t NowNs() {
#if defined(__HIPCC__)
  return wall_clock64();
#else
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
#endif
}

__device__ uint64_t Multiprocessor() {
#if defined(__HIPCC__)
  return __smid();
#else
  uint32_t id;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
  return id;
#endif
}

__device__ void Stamp(uint64_t* trace, int32_t b, int stage) {
  if (trace != nullptr) trace[static_cast<int64_t>(b) * kTraceStages + stage] = NowNs();
}

// Waits until *flag >= at_least and returns it; the record it guards may be read afterwards.
__device__ int32_t WaitFor(const int32_t* flag, int32_t at_least) {
  int32_t value = *reinterpret_cast<const volatile int32_t*>(flag);
  while (value < at_least) {
    PauseBriefly();
    value = *reinterpret_cast<const volatile int32_t*>(flag);
  }
  __threadfence();
  return value;
}

template <typename T>
__device__ T Fresh(const T* p) {
  return *reinterpret_cast<const volatile T*>(p);
}

__device__ ExactSumPiece FreshPiece(const ExactSumPiece* p) {
  ExactSumPiece out;
  for (int parity = 0; parity < 2; ++parity) {
    out.added[parity] = Fresh(&p->added[parity]);
    out.lowest[parity] = Fresh(&p->lowest[parity]);
    out.highest[parity] = Fresh(&p->highest[parity]);
  }
  out.state = Fresh(&p->state);
  out.padding = 0;
  return out;
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


// The exact running sum through block j (0.0 before the frame, j = -1) into *sum: an ordered
// block's own record, or the piece of j's run applied to its anchor's. Returns kExactKnown, or
// why the sum is not known (a block gave up, or a check failed).
__device__ int32_t ExactThrough(const Layout& l, int32_t j, double* sum) {
  if (j < 0) {
    *sum = 0.0;
    return kExactKnown;
  }
  if (WaitFor(&l.piece_state[j], kBlockRunPrefix) == kBlockOrdered) {
    const int32_t known = WaitFor(&l.exact_state[j], kExactKnown);
    if (known == kExactKnown) *sum = Fresh(&l.exact[j]);
    return known;
  }
  const int32_t anchor = Fresh(&l.anchors[j]);
  double start = 0.0;
  if (anchor >= 0) {
    // Anchors are ordered blocks (JoinsExactSumRun): any other would never publish a sum.
    if (WaitFor(&l.piece_state[anchor], kBlockRunPrefix) != kBlockOrdered) {
      return kExactGaveUpCheck;
    }
    const int32_t known = WaitFor(&l.exact_state[anchor], kExactKnown);
    if (known != kExactKnown) return known;
    start = Fresh(&l.exact[anchor]);
  }
  return ApplyExactSumPiece(start, Fresh(&l.block_grids[j]), FreshPiece(&l.run_pieces[j]), sum)
             ? kExactKnown
             : kExactGaveUpCheck;
}

__device__ void WriteOutcome(const Layout& l, int32_t known, double sum) {
  l.outcome->sum = sum;
  l.outcome->fallback = known == kExactKnown          ? kExactSumOnDevice
                        : known == kExactGaveUpBudget ? kExactSumSerialBudget
                                                      : kExactSumCheckFailed;
}

// The approximate running sum (and sum of |t|) before block b, by the first lane group: a
// decoupled look-back over windows of kLaneGroupWidth predecessors, lane k reading block
// (window end - k), adding aggregates up to the nearest inclusive sum. Any order serves: these
// sums only guide the guess of the grids. Every lane returns the result.
__device__ void ApproxBefore(const Layout& l, int32_t b, double* sum, double* abs_sum) {
  const int lane = LaneInGroup();
  double total = 0.0;
  double total_abs = 0.0;
  for (int32_t end = b - 1; end >= 0; end -= kLaneGroupWidth) {
    const int32_t j = end - lane;
    const int32_t state = j >= 0 ? WaitFor(&l.approx_state[j], kApproxAggregate) : kApproxInclusive;
    const int nearest_inclusive = GroupMin(state == kApproxInclusive ? lane : kLaneGroupWidth);
    double v = 0.0;
    double v_abs = 0.0;
    if (j >= 0 && lane <= nearest_inclusive) {
      const int at = state == kApproxInclusive ? 2 : 0;
      v = Fresh(&l.approx[4 * j + at]);
      v_abs = Fresh(&l.approx[4 * j + at + 1]);
    }
    for (int offset = kLaneGroupWidth / 2; offset > 0; offset /= 2) {
      v += ShuffleDownInGroup(v, offset);
      v_abs += ShuffleDownInGroup(v_abs, offset);
    }
    total += ValueOfLane(v, 0);
    total_abs += ValueOfLane(v_abs, 0);
    if (nearest_inclusive < kLaneGroupWidth) break;
  }
  *sum = total;
  *abs_sum = total_abs;
}

// The piece of block b's run up to and including it (block b on grid `grid` with block piece
// `own`, in lane 0), by the first lane group: a look-back over windows of predecessors, lane k
// reading block (window end - 31 + k) so that lanes keep the blocks' order, combining block
// pieces up to the nearest predecessor that stops the look-back (RunLookBackStep). Lane 0 returns
// the piece and the anchor.
__device__ ExactSumPiece RunPieceThrough(const Layout& l, int32_t b, int32_t grid,
                                         const ExactSumPiece& own, int32_t* anchor) {
  const int lane = LaneInGroup();
  ExactSumPiece through = own;
  for (int32_t end = b - 1;; end -= kLaneGroupWidth) {
    const int32_t j = end - (kLaneGroupWidth - 1) + lane;
    int32_t step = kStopBefore;
    int32_t anchor_here = j < 0 ? -1 : j;  // the anchor if this lane stops the look-back
    if (j >= 0) {
      const int32_t state = WaitFor(&l.piece_state[j], kBlockPiece);
      step = RunLookBackStep(state, Fresh(&l.block_grids[j]), grid);
      if (step == kCombineAndStop) anchor_here = Fresh(&l.anchors[j]);
    }
    const int stop_lane = GroupMax(step != kCombineAndGoOn ? lane : -1);
    ExactSumPiece piece = EmptyExactSumPiece();
    if (lane > stop_lane) {
      piece = FreshPiece(&l.block_pieces[j]);
    } else if (lane == stop_lane && step == kCombineAndStop) {
      piece = FreshPiece(&l.run_pieces[j]);
    }
    piece = CombineGroup(piece);
    through = CombineExactSumPieces(piece, through);  // meaningful in lane 0
    if (stop_lane >= 0) {
      *anchor = ValueOfLane(anchor_here, stop_lane);
      return through;
    }
  }
}

// A block's terms as staged in shared memory (a lane's kExactSumTermsPerLane terms, then one
// double of padding), indexed by their place in the block.
struct StagedTerms {
  static constexpr int kLaneStride = kExactSumTermsPerLane + 1;
  const double* staged;
  __host__ __device__ double operator[](int i) const {
    return staged[(i / kExactSumTermsPerLane) * kLaneStride + i % kExactSumTermsPerLane];
  }
};

// Blocks of the kernel that must fit on one multiprocessor at once: a register budget (64 per
// thread on NVIDIA) that the crossing summaries' code would otherwise exceed. (HIP on AMD reads
// the bound as an occupancy hint too.)
constexpr int kBlocksPerSm = 4;

// The whole sum, one block per kExactSumBlockTerms terms: approximate sums and their look-back,
// each segment's grid and piece (or crossing summary) by one lane group, then the block piece;
// a block that joins a run publishes its run's piece and leaves, an ordered block waits for the
// exact sum before it and adds its segments in order. The last block writes the outcome.
__global__ void __launch_bounds__(kBlockThreads, kBlocksPerSm)
    ExactSerialSum(const double* terms, int64_t count, int32_t blocks, Layout l,
                   uint64_t* trace) {
  __shared__ int32_t block_index;
  __shared__ double segment_sums[kExactSumSegmentsPerBlock];
  __shared__ double segment_abs_sums[kExactSumSegmentsPerBlock];
  __shared__ double before_sum;
  __shared__ double before_abs_sum;
  __shared__ int32_t grids[kExactSumSegmentsPerBlock];
  __shared__ ExactSumPiece pieces[kExactSumSegmentsPerBlock];
  __shared__ ExactSumCrossing crossings[kExactSumSegmentsPerBlock];
  // The block's terms, loaded coalesced, then read by each lane as its consecutive run. A lane's
  // run is stored one double apart from the next lane's, which keeps the lanes' reads on
  // distinct banks.
  constexpr int kLaneStride = StagedTerms::kLaneStride;
  __shared__ double staged[kBlockThreads * kLaneStride];
  if (threadIdx.x == 0) block_index = static_cast<int32_t>(atomicAdd(l.ticket, 1u));
  __syncthreads();
  const int32_t b = block_index;
  if (threadIdx.x == 0) {
    Stamp(trace, b, kTraceStarted);
    if (trace != nullptr) trace[static_cast<int64_t>(blocks) * kTraceStages + b] = Multiprocessor();
  }
  const int group = GroupInBlock();
  const int lane = LaneInGroup();
  const int64_t block_first = static_cast<int64_t>(b) * kExactSumBlockTerms;
#pragma unroll
  for (int k = 0; k < kExactSumTermsPerLane; ++k) {
    const int within = k * kBlockThreads + static_cast<int>(threadIdx.x);
    const int64_t i = block_first + within;
    staged[(within / kExactSumTermsPerLane) * kLaneStride + within % kExactSumTermsPerLane] =
        i < count ? terms[i] : 0.0;
  }
  __syncthreads();
  const double* own = staged + static_cast<int>(threadIdx.x) * kLaneStride;
  double values[kExactSumTermsPerLane];
  double sum = 0.0;
  double abs_sum = 0.0;
#pragma unroll
  for (int k = 0; k < kExactSumTermsPerLane; ++k) {
    values[k] = own[k];
    sum += values[k];
    abs_sum += fabs(values[k]);
  }
  for (int offset = kLaneGroupWidth / 2; offset > 0; offset /= 2) {
    sum += ShuffleDownInGroup(sum, offset);
    abs_sum += ShuffleDownInGroup(abs_sum, offset);
  }
  if (lane == 0) {
    segment_sums[group] = sum;
    segment_abs_sums[group] = abs_sum;
  }
  __syncthreads();
  // The approximate stage: publish the block's sums, look back, publish the running sums.
  if (group == 0) {
    double block_sum = 0.0;
    double block_abs_sum = 0.0;
    for (int k = 0; k < kExactSumSegmentsPerBlock; ++k) {
      block_sum += segment_sums[k];
      block_abs_sum += segment_abs_sums[k];
    }
    if (lane == 0 && b > 0) {
      l.approx[4 * b] = block_sum;
      l.approx[4 * b + 1] = block_abs_sum;
      Publish(&l.approx_state[b], kApproxAggregate);
    }
    double before = 0.0;
    double before_abs = 0.0;
    ApproxBefore(l, b, &before, &before_abs);
    if (lane == 0) {
      l.approx[4 * b + 2] = before + block_sum;
      l.approx[4 * b + 3] = before_abs + block_abs_sum;
      Publish(&l.approx_state[b], kApproxInclusive);
      Stamp(trace, b, kTraceApproxDone);
      before_sum = before;
      before_abs_sum = before_abs + block_abs_sum;
    }
  }
  __syncthreads();
  // Each group's segment: its guessed grid, then its piece or its crossing summary.
  const int64_t segment = static_cast<int64_t>(b) * kExactSumSegmentsPerBlock + group;
  const int n = ExactSumSegmentLength(count, segment);
  double start = before_sum;
  for (int k = 0; k < group; ++k) start += segment_sums[k];
  const double margin = ExactSumMargin(count, before_abs_sum);
  const int32_t grid =
      n == 0 ? kExactSumNoSegment : GuessSegmentGrid(start, start + segment_sums[group], margin);
  ExactSumPiece piece = EmptyExactSumPiece();
  if (grid == kExactSumSerialGrid) {  // the same for the whole group, as below
    SummariseCrossing(values, n, start, margin, &crossings[group]);
  } else if (grid != kExactSumNoSegment) {
    const int left = n - lane * kExactSumTermsPerLane;
    const int lane_n = left <= 0 ? 0 : (left < kExactSumTermsPerLane ? left : kExactSumTermsPerLane);
    piece = CombineGroup(FoldExactSumTerms(values, lane_n, ExactSumGridScale(grid)));
  }
  if (lane == 0) {
    pieces[group] = piece;
    grids[group] = grid;
  }
  __syncthreads();
  if (group != 0) return;
  // The first group from here: the block piece, whether the block joins a run, and then either
  // the run's look-back (and, for the frame's last block only, the exact sum) or, in one lane,
  // the block in order after the exact sum before it.
  const int32_t own_grid = ExactSumBlockGrid(grids);
  const ExactSumPiece block_piece =
      CombineGroup(lane < kExactSumSegmentsPerBlock ? pieces[lane] : EmptyExactSumPiece());
  int joins = 0;
  if (lane == 0) {
    l.block_grids[b] = own_grid;
    Publish(&l.piece_state[b], kBlockGridKnown);
    Stamp(trace, b, kTraceGridKnown);
    int32_t previous_grid = kExactSumSerialGrid;
    if (b > 0) {
      WaitFor(&l.piece_state[b - 1], kBlockGridKnown);
      previous_grid = Fresh(&l.block_grids[b - 1]);
    }
    joins = JoinsExactSumRun(own_grid, block_piece, before_sum, margin, previous_grid) ? 1 : 0;
  }
  if (ValueOfLane(joins, 0) != 0) {
    if (lane == 0) {
      l.block_pieces[b] = block_piece;
      Publish(&l.piece_state[b], kBlockPiece);
    }
    int32_t anchor = -1;
    const ExactSumPiece run_piece = RunPieceThrough(l, b, own_grid, block_piece, &anchor);
    if (lane != 0) return;
    l.run_pieces[b] = run_piece;
    l.anchors[b] = anchor;
    Publish(&l.piece_state[b], kBlockRunPrefix);
    if (b == blocks - 1) {
      double exact = 0.0;
      const int32_t known = ExactThrough(l, b, &exact);
      WriteOutcome(l, known, exact);
    }
    Stamp(trace, b, kTraceDone);
    return;
  }
  if (lane != 0) return;
  Publish(&l.piece_state[b], kBlockOrdered);
  double exact = 0.0;
  int32_t known = ExactThrough(l, b - 1, &exact);
  if (known == kExactKnown && Fresh(&l.outcome->serial_terms) >= kExactSumSerialTermBudget) {
    known = kExactGaveUpBudget;
  }
  if (known == kExactKnown) {
    const int serial =
        AddBlockInOrder(StagedTerms{staged}, count, b, grids, pieces, crossings, &exact);
    atomicAdd(reinterpret_cast<unsigned long long*>(&l.outcome->serial_terms),
              static_cast<unsigned long long>(serial));
    atomicAdd(&l.outcome->ordered_blocks, 1);
  }
  l.exact[b] = exact;
  Publish(&l.exact_state[b], known);
  if (b == blocks - 1) WriteOutcome(l, known, exact);
  Stamp(trace, b, kTraceDone);
}

}  // namespace

size_t ExactSumWorkspaceBytes(int64_t count) { return LayoutFor(nullptr, count).bytes; }

hipError_t LaunchExactSerialSumTraced(const double* terms, int64_t count, void* workspace,
                                      uint64_t* trace, hipStream_t stream) {
  const Layout l = LayoutFor(workspace, count);
  const hipError_t cleared = hipMemsetAsync(workspace, 0, l.cleared_bytes, stream);
  if (cleared != hipSuccess) return cleared;
  const int32_t blocks = BlockCount(count);
  hipLaunchKernelGGL(ExactSerialSum, dim3(blocks), dim3(kBlockThreads), 0, stream, terms, count,
                     blocks, l, trace);
  return hipGetLastError();
}

hipError_t LaunchExactSerialSum(const double* terms, int64_t count, void* workspace,
                                hipStream_t stream) {
  return LaunchExactSerialSumTraced(terms, count, workspace, nullptr, stream);
}

}  // namespace ssimd
