// The exact serial sum on the device, in one pass: every step is a function of
// kernels/exact_sum_math.h, the lines the host model (engine/gpu/exact_sum.cc) and its tests run;
// only the parallel orchestration lives here (docs/adr/0022).
//
// Blocks take their place in the frame from a ticket, so every block a block waits for has
// started. Each block publishes what its successors read: its approximate sum, then its
// approximate running sum (a decoupled look-back); its grid, then its block piece if it joins a
// run, or that it is ordered; an ordered block finally publishes its exact running sum. Records
// are written, then flagged with a release store; readers see the flag with an acquire load and
// read the record with volatile loads (no stale cache line). An exact sum is one 64-bit word that
// is its own flag.
#include <cstddef>
#include <cstdint>

#include "kernels/hip_portability.h"  // first: it defines __host__ and __device__ for AMD
#include "kernels/exact_sum_kernels.h"
#include "kernels/exact_sum_math.h"
#include "kernels/lane_group.h"

namespace ssimd {
namespace {

constexpr size_t kAlign = 256;
constexpr int kBlockThreads = kExactSumBlockThreads;
constexpr int kGroupsPerBlock = kBlockThreads / kLaneGroupWidth;
// Each group takes this many of the block's segments, one a round.
constexpr int kSegmentRounds = kExactSumSegmentsPerBlock / kGroupsPerBlock;
static_assert(kExactSumGroupLanes == kLaneGroupWidth, "one lane group per segment");
static_assert(kGroupsPerBlock <= kLaneGroupWidth, "one group combines the groups' results");

size_t AlignUp(size_t bytes) { return (bytes + kAlign - 1) / kAlign * kAlign; }

int32_t BlockCount(int64_t count) {
  return static_cast<int32_t>((count + kExactSumBlockTerms - 1) / kExactSumBlockTerms);
}

// The approximate stage's flags.
constexpr int32_t kApproxAggregate = 1;
constexpr int32_t kApproxInclusive = 2;

// An ordered block's exact running sum as one word: 0 until it is known, then the sum's bits
// exclusive-or kExactWordKey, or one of the reasons it is not known (1, 2). The key and its
// neighbours 1 and 2 apart are the bits of NaNs, and a NaN sum is never published (it goes to
// the host as a failed check), so a known sum never reads as 0, 1 or 2.
constexpr uint64_t kExactWordKey = 0x7ff4c0ffee5eed00u;
constexpr uint64_t kExactWordGaveUpBudget = 1;  // the serial budget ran out
constexpr uint64_t kExactWordGaveUpCheck = 2;   // a run's piece did not fit its binade after all

// Where each array lives in the workspace. Everything up to `cleared_bytes` (the outcome, the
// ticket, the flags and the exact words) is zeroed before each launch.
struct Layout {
  ExactSumOutcome* outcome;
  uint32_t* ticket;
  int32_t* approx_state;  // per block
  int32_t* piece_state;   // per block: kBlockNothingYet .. kBlockOrdered
  uint64_t* exact_words;  // per ordered block
  size_t cleared_bytes;
  double* approx;  // per block: its sum, its sum of |t|, the running sum and sum of |t| through it
  int32_t* block_grids;
  ExactSumPiece* block_pieces;
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
  l.exact_words = reinterpret_cast<uint64_t*>(take(blocks * sizeof(uint64_t)));
  l.cleared_bytes = offset;
  l.approx = reinterpret_cast<double*>(take(4 * blocks * sizeof(double)));
  l.block_grids = reinterpret_cast<int32_t*>(take(blocks * sizeof(int32_t)));
  l.block_pieces = reinterpret_cast<ExactSumPiece*>(take(blocks * sizeof(ExactSumPiece)));
  l.bytes = offset;
  return l;
}

// Publishing and reading records across blocks: a release store of the flag after the record,
// an acquire load of the flag before reading the record.
__device__ void Publish(int32_t* flag, int32_t value) {
#if defined(__HIPCC__)
  __hip_atomic_store(flag, value, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_AGENT);
#else
  asm volatile("st.release.gpu.global.b32 [%0], %1;" ::"l"(flag), "r"(value) : "memory");
#endif
}

__device__ int32_t LoadAcquire(const int32_t* flag) {
#if defined(__HIPCC__)
  return __hip_atomic_load(flag, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_AGENT);
#else
  int32_t value;
  asm volatile("ld.acquire.gpu.global.b32 %0, [%1];" : "=r"(value) : "l"(flag) : "memory");
  return value;
#endif
}

__device__ void PauseBriefly() {
#if defined(__HIPCC__)
  __builtin_amdgcn_s_sleep(1);
#else
  __nanosleep(64);
#endif
}

// The device's nanosecond clock and the block's multiprocessor, for traced launches. On AMD the
// stamps are the compute unit's own counter, not comparable across blocks: tracing is for NVIDIA.
__device__ uint64_t NowNs() {
#if defined(__HIPCC__)
  return __clock64();
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
// kExactSumTermsPerLane consecutive terms of the segment's n (0.0 past them); the block's
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


// Waits until *flag >= at_least and returns it; the record it guards may be read afterwards.
__device__ int32_t WaitFor(const int32_t* flag, int32_t at_least) {
  int32_t value = LoadAcquire(flag);
  while (value < at_least) {
    PauseBriefly();
    value = LoadAcquire(flag);
  }
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

// An ordered block's exact sum, published as one word (no flag, no fence: the word is the record).
__device__ void PublishExact(uint64_t* word, bool known, double sum, uint64_t reason) {
  const uint64_t bits = ExactSumBitsOf(sum);
  uint64_t value = known ? (bits ^ kExactWordKey) : reason;
  if (known && sum != sum) value = kExactWordGaveUpCheck;  // NaN: the host adds the frame
  *reinterpret_cast<volatile uint64_t*>(word) = value;
}

// Waits for block j's exact sum (0.0 for j = -1); returns 0 with the sum, or why it is not known.
__device__ uint64_t WaitExact(const uint64_t* word, int32_t j, double* sum) {
  if (j < 0) {
    *sum = 0.0;
    return 0;
  }
  uint64_t value = Fresh(&word[j]);
  while (value == 0) value = Fresh(&word[j]);  // few blocks wait here, and each wait is on the
                                               // frame's critical path: no pause
  if (value == kExactWordGaveUpBudget || value == kExactWordGaveUpCheck) return value;
  *sum = ExactSumDoubleOf(value ^ kExactWordKey);
  return 0;
}

__device__ void WriteOutcome(const Layout& l, uint64_t reason, double sum) {
  l.outcome->sum = sum;
  l.outcome->fallback = reason == 0                        ? kExactSumOnDevice
                        : reason == kExactWordGaveUpBudget ? kExactSumSerialBudget
                                                           : kExactSumCheckFailed;
}

// Block-wide reductions over kBlockThreads threads; `scratch` holds kGroupsPerBlock values. Every
// thread returns the result.
template <typename T, typename Op>
__device__ T ReduceBlock(T value, T* scratch, Op op) {
  for (int offset = kLaneGroupWidth / 2; offset > 0; offset /= 2) {
    value = op(value, ShuffleDownInGroup(value, offset));
  }
  if (LaneInGroup() == 0) scratch[GroupInBlock()] = value;
  __syncthreads();
  T total = scratch[0];
  for (int g = 1; g < kGroupsPerBlock; ++g) total = op(total, scratch[g]);
  __syncthreads();  // scratch is free again
  return total;
}

// The smaller of two ints, as ReduceBlock's operation.
__device__ int SmallerOf(int x, int y) { return x < y ? x : y; }

// The approximate running sum (and sum of |t|) before block b, by the whole block: a decoupled
// look-back over windows of kBlockThreads predecessors, thread k reading block (window end - k),
// adding aggregates up to the nearest inclusive sum (after Merrill and Garland's single-pass
// scan). Any order serves: these sums only guide the guess of the grids.
__device__ void ApproxBefore(const Layout& l, int32_t b, double* sum, double* abs_sum,
                             double* scratch, int* int_scratch) {
  const int tid = static_cast<int>(threadIdx.x);
  double own = 0.0;
  double own_abs = 0.0;
  for (int32_t end = b - 1; end >= 0; end -= kBlockThreads) {
    const int32_t j = end - tid;
    const int32_t state = j >= 0 ? WaitFor(&l.approx_state[j], kApproxAggregate) : kApproxInclusive;
    const int nearest =
        ReduceBlock(state == kApproxInclusive ? tid : kBlockThreads, int_scratch, SmallerOf);
    if (j >= 0 && tid <= nearest) {
      const int at = state == kApproxInclusive ? 2 : 0;
      own += Fresh(&l.approx[4 * j + at]);
      own_abs += Fresh(&l.approx[4 * j + at + 1]);
    }
    if (nearest < kBlockThreads) break;
  }
  const auto add = [](double x, double y) { return x + y; };
  *sum = ReduceBlock(own, scratch, add);
  *abs_sum = ReduceBlock(own_abs, scratch, add);
}

// The run that ends with block `last` (on grid `grid`), by the whole block: its anchor (the
// nearest block before it that is ordered or on another grid; -1 at the frame's start), found
// looking back kBlockThreads blocks at a time, and the combination of the run's block pieces,
// each thread folding a contiguous share in order, then groups and the groups' results. Thread 0
// returns the piece (empty when `last` itself is the anchor).
__device__ ExactSumPiece RunPieceThrough(const Layout& l, int32_t last, int32_t grid,
                                         int32_t* anchor, int* int_scratch,
                                         ExactSumPiece* piece_scratch) {
  const int tid = static_cast<int>(threadIdx.x);
  int32_t found = -1;
  for (int32_t end = last; end >= 0; end -= kBlockThreads) {
    const int32_t j = end - tid;
    bool stops = true;
    if (j >= 0) {
      const int32_t state = WaitFor(&l.piece_state[j], kBlockPiece);
      stops = state != kBlockPiece || Fresh(&l.block_grids[j]) != grid;
    }
    const int nearest = ReduceBlock(stops ? tid : kBlockThreads, int_scratch, SmallerOf);
    if (nearest < kBlockThreads) {
      found = end - nearest;
      break;
    }
  }
  *anchor = found < 0 ? -1 : found;
  const int32_t first = *anchor + 1;
  const int32_t n = last + 1 - first;
  const int32_t share = (n + kBlockThreads - 1) / kBlockThreads;
  const int32_t from = first + min(n, tid * share);
  const int32_t to = first + min(n, (tid + 1) * share);
  ExactSumPiece piece = EmptyExactSumPiece();
  for (int32_t j = from; j < to; ++j) {
    piece = CombineExactSumPieces(piece, FreshPiece(&l.block_pieces[j]));
  }
  piece = CombineGroup(piece);
  if (LaneInGroup() == 0) piece_scratch[GroupInBlock()] = piece;
  __syncthreads();
  if (GroupInBlock() == 0) {
    piece = CombineGroup(LaneInGroup() < kGroupsPerBlock ? piece_scratch[LaneInGroup()]
                                                         : EmptyExactSumPiece());
  }
  return piece;
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
// each segment's grid and piece (or crossing summary) by one lane group, then the block piece. A
// block that joins a run publishes its piece and leaves; an ordered block combines the run
// before it, waits for the exact sum of that run's anchor and adds its own segments in order;
// the last block finds the frame's sum the same way and writes the outcome.
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
  __shared__ double scratch[kGroupsPerBlock];
  __shared__ int int_scratch[kGroupsPerBlock];
  __shared__ ExactSumPiece piece_scratch[kGroupsPerBlock];
  __shared__ int32_t own_grid;
  __shared__ int32_t previous_grid;  // kExactSumSerialGrid before the frame's first block
  __shared__ int joins;
  // The block's terms, loaded coalesced, then read by each lane as its consecutive run. A lane's
  // run is stored one double apart from the next lane's, which keeps the lanes' reads on
  // distinct banks.
  constexpr int kLaneStride = StagedTerms::kLaneStride;
  __shared__ double staged[kExactSumBlockTerms / kExactSumTermsPerLane * kLaneStride];
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
  for (int k = 0; k < kExactSumBlockTerms / kBlockThreads; ++k) {
    const int within = k * kBlockThreads + static_cast<int>(threadIdx.x);
    const int64_t i = block_first + within;
    staged[(within / kExactSumTermsPerLane) * kLaneStride + within % kExactSumTermsPerLane] =
        i < count ? terms[i] : 0.0;
  }
  __syncthreads();
  // A lane's kExactSumTermsPerLane terms of the block's segment `segment_in_block`.
  double values[kExactSumTermsPerLane];
  const auto load_values = [&](int segment_in_block) {
    const double* own = staged + (segment_in_block * kLaneGroupWidth + lane) * kLaneStride;
#pragma unroll
    for (int k = 0; k < kExactSumTermsPerLane; ++k) values[k] = own[k];
  };
  for (int round = 0; round < kSegmentRounds; ++round) {
    const int segment_in_block = round * kGroupsPerBlock + group;
    load_values(segment_in_block);
    double sum = 0.0;
    double abs_sum = 0.0;
#pragma unroll
    for (int k = 0; k < kExactSumTermsPerLane; ++k) {
      sum += values[k];
      abs_sum += fabs(values[k]);
    }
    for (int offset = kLaneGroupWidth / 2; offset > 0; offset /= 2) {
      sum += ShuffleDownInGroup(sum, offset);
      abs_sum += ShuffleDownInGroup(abs_sum, offset);
    }
    if (lane == 0) {
      segment_sums[segment_in_block] = sum;
      segment_abs_sums[segment_in_block] = abs_sum;
    }
  }
  __syncthreads();
  // The approximate stage: publish the block's sums, look back, publish the running sums.
  double block_sum = 0.0;
  double block_abs_sum = 0.0;
  for (int k = 0; k < kExactSumSegmentsPerBlock; ++k) {
    block_sum += segment_sums[k];
    block_abs_sum += segment_abs_sums[k];
  }
  if (threadIdx.x == 0 && b > 0) {
    l.approx[4 * b] = block_sum;
    l.approx[4 * b + 1] = block_abs_sum;
    Publish(&l.approx_state[b], kApproxAggregate);
  }
  {
    double before = 0.0;
    double before_abs = 0.0;
    ApproxBefore(l, b, &before, &before_abs, scratch, int_scratch);
    if (threadIdx.x == 0) {
      l.approx[4 * b + 2] = before + block_sum;
      l.approx[4 * b + 3] = before_abs + block_abs_sum;
      Publish(&l.approx_state[b], kApproxInclusive);
      Stamp(trace, b, kTraceApproxDone);
      before_sum = before;
      before_abs_sum = before_abs + block_abs_sum;
    }
  }
  __syncthreads();
  // Each group's segments: their guessed grids, then their pieces or crossing summaries.
  const double margin = ExactSumMargin(count, before_abs_sum);
  for (int round = 0; round < kSegmentRounds; ++round) {
    const int segment_in_block = round * kGroupsPerBlock + group;
    const int64_t segment = static_cast<int64_t>(b) * kExactSumSegmentsPerBlock + segment_in_block;
    const int n = ExactSumSegmentLength(count, segment);
    double start = before_sum;
    for (int k = 0; k < segment_in_block; ++k) start += segment_sums[k];
    const int32_t grid = n == 0 ? kExactSumNoSegment
                                : GuessSegmentGrid(start, start + segment_sums[segment_in_block],
                                                   margin);
    load_values(segment_in_block);
    ExactSumPiece piece = EmptyExactSumPiece();
    if (grid == kExactSumSerialGrid) {  // the same for the whole group, as below
      SummariseCrossing(values, n, start, margin, &crossings[segment_in_block]);
    } else if (grid != kExactSumNoSegment) {
      const int left = n - lane * kExactSumTermsPerLane;
      const int lane_n =
          left <= 0 ? 0 : (left < kExactSumTermsPerLane ? left : kExactSumTermsPerLane);
      piece = CombineGroup(FoldExactSumTerms(values, lane_n, ExactSumGridScale(grid)));
    }
    if (lane == 0) {
      pieces[segment_in_block] = piece;
      grids[segment_in_block] = grid;
    }
  }
  __syncthreads();
  // The block piece and whether the block joins a run.
  if (group == 0) {
    const ExactSumPiece block_piece =
        CombineGroup(lane < kExactSumSegmentsPerBlock ? pieces[lane] : EmptyExactSumPiece());
    if (lane == 0) {
      const int32_t block_grid = ExactSumBlockGrid(grids);
      l.block_grids[b] = block_grid;
      Publish(&l.piece_state[b], kBlockGridKnown);
      Stamp(trace, b, kTraceGridKnown);
      previous_grid = kExactSumSerialGrid;
      if (b > 0) {
        WaitFor(&l.piece_state[b - 1], kBlockGridKnown);
        previous_grid = Fresh(&l.block_grids[b - 1]);
      }
      const bool member =
          JoinsExactSumRun(block_grid, block_piece, before_sum, margin, previous_grid);
      if (member) l.block_pieces[b] = block_piece;
      Publish(&l.piece_state[b], member ? kBlockPiece : kBlockOrdered);
      own_grid = block_grid;
      joins = member ? 1 : 0;
    }
  }
  __syncthreads();
  if (joins != 0 && b != blocks - 1) {
    if (threadIdx.x == 0) Stamp(trace, b, kTraceDone);
    return;
  }
  // An ordered block, or the frame's last: the run through the block before it (through the
  // block itself for a last block that joined a run), combined while its anchor's sum is not
  // known yet, then the exact stage in one thread.
  const int32_t run_last = joins != 0 ? b : b - 1;
  int32_t anchor = -1;
  ExactSumPiece run_piece = EmptyExactSumPiece();
  int32_t run_grid = kExactSumSerialGrid;
  if (run_last >= 0) {
    run_grid = joins != 0 ? own_grid : previous_grid;
    run_piece = RunPieceThrough(l, run_last, run_grid, &anchor, int_scratch, piece_scratch);
  }
  if (threadIdx.x != 0) return;
  Stamp(trace, b, kTraceRunCombined);
  ExactSumBlockPlan plan;
  const bool planned = joins == 0 && PlanOrderedBlock(run_piece, run_grid, count, b, grids,
                                                      pieces, crossings, &plan);
  Stamp(trace, b, kTracePlanned);
  double exact = 0.0;
  // Anchors are ordered blocks (JoinsExactSumRun); any other would never publish a sum.
  uint64_t reason = anchor >= 0 && LoadAcquire(&l.piece_state[anchor]) != kBlockOrdered
                        ? kExactWordGaveUpCheck
                        : WaitExact(l.exact_words, anchor, &exact);
  if (joins == 0) {
    if (reason == 0 && Fresh(&l.outcome->serial_terms) >= kExactSumSerialTermBudget) {
      reason = kExactWordGaveUpBudget;
    }
    if (reason == 0) {
      int serial = 0;
      if (!AddOrderedBlock(exact, planned ? &plan : nullptr, run_piece, run_grid,
                           StagedTerms{staged}, count, b, grids, pieces, crossings, &exact,
                           &serial)) {
        reason = kExactWordGaveUpCheck;
      }
      atomicAdd(reinterpret_cast<unsigned long long*>(&l.outcome->serial_terms),
                static_cast<unsigned long long>(serial));
      atomicAdd(&l.outcome->ordered_blocks, 1);
    }
    PublishExact(&l.exact_words[b], reason == 0, exact, reason);
  } else if (reason == 0 && !ApplyExactSumPiece(exact, run_grid, run_piece, &exact)) {
    reason = kExactWordGaveUpCheck;
  }
  if (b == blocks - 1) WriteOutcome(l, reason, exact);
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
