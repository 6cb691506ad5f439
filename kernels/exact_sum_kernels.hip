// The exact serial sum on the device, in one pass: every step is a function of
// kernels/exact_sum_math.h, the lines the host model (engine/gpu/exact_sum.cc) and its tests run;
// only the parallel orchestration lives here (docs/adr/0022).
//
// Blocks take their place in the frame from a ticket, so every block a block waits for has
// started. Each block publishes what its successors read: its approximate sum, then its
// approximate running sum (a decoupled look-back); its grid, then its block piece if it joins a
// run, or that it is ordered. An ordered block then publishes its record (the run before it, its
// plan), and no block waits for an exact sum: the last block to arrive finishes the frame,
// taking the ordered blocks' records in order in one thread with their data in shared memory.
// Records are written, then flagged with a release store; readers see the flag with an acquire
// load and read the record with volatile loads (no stale cache line); arrival is counted after a
// fence, so the finishing block sees every record.
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

// What an ordered block (and the frame's last block) leaves for the block that finishes the
// frame: the run before it and its plan, combined while no exact sum is known yet.
struct OrderedRecord {
  ExactSumBlockPlan plan;
  ExactSumPiece run_piece;  // the blocks after `anchor` up to the block (through it: ends_run)
  int32_t run_grid;
  int32_t anchor;    // the ordered block before the run, -1 at the frame's start
  int32_t planned;   // `plan` holds (PlanOrderedBlock)
  int32_t ends_run;  // the frame's last block joined a run: the run's piece is all it adds
};
static_assert(sizeof(OrderedRecord) % sizeof(uint32_t) == 0, "copied as words");

// Where each array lives in the workspace. Everything up to `cleared_bytes` (the outcome, the
// ticket, the arrival count and the flags) is zeroed before each launch.
struct Layout {
  ExactSumOutcome* outcome;
  uint32_t* ticket;
  uint32_t* arrived;      // blocks that have published all they publish
  int32_t* approx_state;  // per block
  int32_t* piece_state;   // per block: kBlockNothingYet .. kBlockOrdered
  size_t cleared_bytes;
  double* approx;  // per block: its sum, its sum of |t|, the running sum and sum of |t| through it
  int32_t* block_grids;
  ExactSumPiece* block_pieces;
  OrderedRecord* ordered;  // per block, written by ordered blocks and the frame's last
  // Per block and segment, written by ordered blocks: what the finishing block needs when a
  // plan's check refuses it (AddOrderedBlock's segment-by-segment way).
  int32_t* segment_grids;
  ExactSumPiece* segment_pieces;
  ExactSumCrossing* segment_crossings;
  size_t bytes;
};

Layout LayoutFor(void* workspace, int64_t count) {
  const size_t blocks = static_cast<size_t>(BlockCount(count));
  const size_t segments = blocks * kExactSumSegmentsPerBlock;
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
  l.arrived = reinterpret_cast<uint32_t*>(take(sizeof(uint32_t)));
  l.approx_state = reinterpret_cast<int32_t*>(take(blocks * sizeof(int32_t)));
  l.piece_state = reinterpret_cast<int32_t*>(take(blocks * sizeof(int32_t)));
  l.cleared_bytes = offset;
  l.approx = reinterpret_cast<double*>(take(4 * blocks * sizeof(double)));
  l.block_grids = reinterpret_cast<int32_t*>(take(blocks * sizeof(int32_t)));
  l.block_pieces = reinterpret_cast<ExactSumPiece*>(take(blocks * sizeof(ExactSumPiece)));
  l.ordered = reinterpret_cast<OrderedRecord*>(take(blocks * sizeof(OrderedRecord)));
  l.segment_grids = reinterpret_cast<int32_t*>(take(segments * sizeof(int32_t)));
  l.segment_pieces = reinterpret_cast<ExactSumPiece*>(take(segments * sizeof(ExactSumPiece)));
  l.segment_crossings =
      reinterpret_cast<ExactSumCrossing*>(take(segments * sizeof(ExactSumCrossing)));
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

// Copies a record another block wrote as volatile 32-bit words (after the arrival count, so
// every word is final), `words` threads each taking every `threads`-th word.
template <typename T>
__device__ void CopyFresh(const T* from, T* to, int first_word, int stride) {
  constexpr int kWords = static_cast<int>(sizeof(T) / sizeof(uint32_t));
  const volatile uint32_t* source = reinterpret_cast<const volatile uint32_t*>(from);
  uint32_t* target = reinterpret_cast<uint32_t*>(to);
  for (int w = first_word; w < kWords; w += stride) target[w] = source[w];
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

// A block's terms are staged in shared memory as each lane's kExactSumTermsPerLane terms, then
// one double of padding, which keeps the lanes' reads on distinct banks.
constexpr int kLaneStride = kExactSumTermsPerLane + 1;

// The block that finishes the frame reads the ordered blocks' records in batches of this many,
// staged in shared memory with the terms each plan adds one by one.
constexpr int kFinishBatch = 2 * kLaneGroupWidth;
// Block states each thread of the finishing block looks at per window.
constexpr int kStatesPerThread = 4;

// An exclusive scan of one int per thread over the block; `scratch` holds kGroupsPerBlock ints.
// *total gets the sum over the block.
__device__ int ExclusiveScanBlock(int value, int* scratch, int* total) {
  const int lane = LaneInGroup();
  int inclusive = value;
  for (int offset = 1; offset < kLaneGroupWidth; offset *= 2) {
    const int before = ShuffleUpInGroup(inclusive, offset);
    if (lane >= offset) inclusive += before;
  }
  if (lane == kLaneGroupWidth - 1) scratch[GroupInBlock()] = inclusive;
  __syncthreads();
  int groups_before = 0;
  int all = 0;
  for (int g = 0; g < kGroupsPerBlock; ++g) {
    groups_before += g < GroupInBlock() ? scratch[g] : 0;
    all += scratch[g];
  }
  __syncthreads();  // scratch is free again
  *total = all;
  return groups_before + inclusive - value;
}

// An ordered block's terms for the finishing block: those its plan adds one by one from shared
// memory when they were staged there, any other from global memory.
struct FinishingTerms {
  const double* staged;  // the block's terms [staged_begin, staged_end)
  int32_t staged_begin;
  int32_t staged_end;
  const double* block;  // the block's first term in global memory
  __host__ __device__ double operator[](int i) const {
    return i >= staged_begin && i < staged_end ? staged[i - staged_begin] : block[i];
  }
};

// Shared memory the finishing block works in, carved from the (no longer needed) staged terms.
struct FinishArea {
  OrderedRecord* records;  // kFinishBatch
  double* terms;           // the rest
  int term_capacity;
};

// The frame's sum from the ordered blocks' records, in order, by the block that arrived last.
// The whole block finds the records (windows of block states, compacted by a scan) and stages
// each batch with the terms its plans add one by one; then one thread takes them in order: the
// plan's checks (or, refused, the run's piece and the block segment by segment from global
// memory, AddOrderedBlock), the serial budget, and for a last block that joined a run its run's
// piece. The same decisions, in the same order, as the host model (SerialSumByBlocks).
__device__ void FinishFrame(const Layout& l, const double* terms, int64_t count, int32_t blocks,
                            const FinishArea& area, int32_t* batch_blocks, int32_t* batch_offsets,
                            int* int_scratch, int32_t* grids, ExactSumPiece* pieces,
                            ExactSumCrossing* crossings, uint64_t* trace) {
  const int tid = static_cast<int>(threadIdx.x);
  // The finishing block's stamps (first batch only), after the per-block ones.
  uint64_t* finish_trace =
      trace == nullptr ? nullptr : trace + static_cast<int64_t>(blocks) * (kTraceStages + 1);
  const auto stamp = [&](bool first_batch, int stage) {
    if (finish_trace != nullptr && tid == 0 && first_batch) finish_trace[stage] = NowNs();
  };
  stamp(true, kFinishStarted);
  const int lane = LaneInGroup();
  const int group = GroupInBlock();
  // Thread 0's chain.
  double exact = 0.0;
  int32_t fallback = kExactSumOnDevice;
  int32_t previous = -1;
  int64_t serial = 0;
  int32_t ordered = 0;
  constexpr int kWindow = kBlockThreads * kStatesPerThread;
  for (int32_t window = 0; window < blocks; window += kWindow) {
    const int32_t first = window + tid * kStatesPerThread;
    int listed_mask = 0;
    int listed = 0;
    for (int q = 0; q < kStatesPerThread; ++q) {
      const int32_t j = first + q;
      if (j < blocks && (j == blocks - 1 || Fresh(&l.piece_state[j]) == kBlockOrdered)) {
        listed_mask |= 1 << q;
        ++listed;
      }
    }
    int total = 0;
    const int position = ExclusiveScanBlock(listed, int_scratch, &total);
    for (int batch = 0; batch < total; batch += kFinishBatch) {
      const bool first_batch = window == 0 && batch == 0;
      int at = position;
      for (int q = 0; q < kStatesPerThread; ++q) {
        if ((listed_mask >> q & 1) == 0) continue;
        if (at >= batch && at < batch + kFinishBatch) batch_blocks[at - batch] = first + q;
        ++at;
      }
      __syncthreads();
      stamp(first_batch, kFinishFound);
      const int n = min(kFinishBatch, total - batch);
      constexpr int kRecordWords = static_cast<int>(sizeof(OrderedRecord) / sizeof(uint32_t));
      for (int w = tid; w < n * kRecordWords; w += kBlockThreads) {
        const int i = w / kRecordWords;
        CopyFresh(&l.ordered[batch_blocks[i]], &area.records[i], w % kRecordWords, kRecordWords);
      }
      __syncthreads();
      stamp(first_batch, kFinishCopied);
      // Where each record's serial terms go: a scan of their lengths by one group, two records
      // a lane; a record whose terms do not fit reads them from global memory (-1).
      if (group == 0) {
        int length[2];
        for (int h = 0; h < 2; ++h) {
          const int i = 2 * lane + h;
          const OrderedRecord& r = area.records[i];
          length[h] = i < n && r.planned != 0 ? r.plan.serial_end - r.plan.serial_begin : 0;
        }
        const int pair = length[0] + length[1];
        int through = pair;
        for (int offset = 1; offset < kLaneGroupWidth; offset *= 2) {
          const int before = ShuffleUpInGroup(through, offset);
          if (lane >= offset) through += before;
        }
        int offset = through - pair;
        for (int h = 0; h < 2; ++h) {
          batch_offsets[2 * lane + h] = offset + length[h] <= area.term_capacity ? offset : -1;
          offset += length[h];
        }
      }
      __syncthreads();
      for (int i = group; i < n; i += kGroupsPerBlock) {
        const OrderedRecord& r = area.records[i];
        if (r.planned == 0 || batch_offsets[i] < 0) continue;
        const double* from =
            terms + static_cast<int64_t>(batch_blocks[i]) * kExactSumBlockTerms + r.plan.serial_begin;
        for (int k = lane; k < r.plan.serial_end - r.plan.serial_begin; k += kLaneGroupWidth) {
          area.terms[batch_offsets[i] + k] = from[k];
        }
      }
      __syncthreads();
      stamp(first_batch, kFinishStaged);
      if (tid == 0) {
        for (int i = 0; i < n && fallback == kExactSumOnDevice; ++i) {
          const int32_t j = batch_blocks[i];
          const OrderedRecord& r = area.records[i];
          if (r.anchor != previous) {  // anchors are the ordered blocks (JoinsExactSumRun)
            fallback = kExactSumCheckFailed;
            break;
          }
          previous = j;
          if (r.ends_run != 0) {
            if (!ApplyExactSumPiece(exact, r.run_grid, r.run_piece, &exact)) {
              fallback = kExactSumCheckFailed;
            }
            break;
          }
          if (serial >= kExactSumSerialTermBudget) {
            fallback = kExactSumSerialBudget;
            break;
          }
          const double* block = terms + static_cast<int64_t>(j) * kExactSumBlockTerms;
          const bool staged = r.planned != 0 && batch_offsets[i] >= 0;
          const FinishingTerms block_terms{staged ? area.terms + batch_offsets[i] : nullptr,
                                           staged ? r.plan.serial_begin : 0,
                                           staged ? r.plan.serial_end : 0, block};
          double sum = exact;
          if (r.planned != 0 && ApplyOrderedBlockPlan(exact, r.plan, block_terms, &sum)) {
            serial += r.plan.serial_end - r.plan.serial_begin;
          } else {
            // The plan was refused: the block's segment records, then the slow way.
            const int64_t s0 = static_cast<int64_t>(j) * kExactSumSegmentsPerBlock;
            for (int k = 0; k < kExactSumSegmentsPerBlock; ++k) {
              grids[k] = Fresh(&l.segment_grids[s0 + k]);
              CopyFresh(&l.segment_pieces[s0 + k], &pieces[k], 0, 1);
              CopyFresh(&l.segment_crossings[s0 + k], &crossings[k], 0, 1);
            }
            int added = 0;
            if (!AddOrderedBlock(exact, nullptr, r.run_piece, r.run_grid, block_terms, count, j,
                                 grids, pieces, crossings, &sum, &added)) {
              fallback = kExactSumCheckFailed;
            }
            serial += added;
          }
          ++ordered;
          exact = sum;
          if (exact != exact) fallback = kExactSumCheckFailed;  // NaN: the host adds the frame
          stamp(first_batch && i < kTraceFinishRecords, kFinishFirstRecord + i);
        }
      }
      __syncthreads();  // the batch's shared memory is free again
    }
  }
  if (tid == 0) {
    l.outcome->sum = exact;
    l.outcome->fallback = fallback;
    l.outcome->ordered_blocks = ordered;
    l.outcome->serial_terms = serial;
  }
}

// Blocks of the kernel that must fit on one multiprocessor at once: a register budget (64 per
// thread on NVIDIA) that the crossing summaries' code would otherwise exceed. (HIP on AMD reads
// the bound as an occupancy hint too.)
constexpr int kBlocksPerSm = 4;

// The whole sum, one block per kExactSumBlockTerms terms: approximate sums and their look-back,
// each segment's grid and piece (or crossing summary) by one lane group, then the block piece. A
// block that joins a run publishes its piece; an ordered block (and the frame's last) combines
// the run before it and plans its exact stage, and publishes both. No block waits for an exact
// sum: the block that arrives last finishes the frame (FinishFrame) and writes the outcome.
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
  __shared__ int finishes;
  __shared__ int32_t batch_blocks[kFinishBatch];
  __shared__ int32_t batch_offsets[kFinishBatch];
  // The block's terms, loaded coalesced, then read by each lane as its consecutive run.
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
  if (joins == 0 || b == blocks - 1) {
    // An ordered block, or the frame's last: the run through the block before it (through the
    // block itself for a last block that joined a run) and the block's plan.
    const int32_t run_last = joins != 0 ? b : b - 1;
    int32_t anchor = -1;
    ExactSumPiece run_piece = EmptyExactSumPiece();
    int32_t run_grid = kExactSumSerialGrid;
    if (run_last >= 0) {
      run_grid = joins != 0 ? own_grid : previous_grid;
      run_piece = RunPieceThrough(l, run_last, run_grid, &anchor, int_scratch, piece_scratch);
    }
    if (threadIdx.x == 0) Stamp(trace, b, kTraceRunCombined);
    if (joins == 0 && threadIdx.x < kExactSumSegmentsPerBlock) {
      const int64_t at = static_cast<int64_t>(b) * kExactSumSegmentsPerBlock + threadIdx.x;
      l.segment_grids[at] = grids[threadIdx.x];
      l.segment_pieces[at] = pieces[threadIdx.x];
      l.segment_crossings[at] = crossings[threadIdx.x];
    }
    if (threadIdx.x == 0) {
      OrderedRecord record;
      record.run_piece = run_piece;
      record.run_grid = run_grid;
      record.anchor = anchor;
      record.ends_run = joins;
      record.planned = joins == 0 && PlanOrderedBlock(run_piece, run_grid, count, b, grids, pieces,
                                                      crossings, &record.plan)
                           ? 1
                           : 0;
      l.ordered[b] = record;
    }
  }
  // Arrival: every thread's records are out before the count moves.
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) {
    Stamp(trace, b, kTraceDone);
    finishes = atomicAdd(l.arrived, 1u) == static_cast<uint32_t>(blocks - 1) ? 1 : 0;
  }
  __syncthreads();
  if (finishes == 0) return;
  __threadfence();
  const FinishArea area{
      reinterpret_cast<OrderedRecord*>(staged),
      staged + kFinishBatch * sizeof(OrderedRecord) / sizeof(double),
      static_cast<int>(sizeof(staged) / sizeof(double) -
                       kFinishBatch * sizeof(OrderedRecord) / sizeof(double))};
  FinishFrame(l, terms, count, blocks, area, batch_blocks, batch_offsets, int_scratch, grids,
              pieces, crossings, trace);
  if (threadIdx.x == 0) Stamp(trace, b, kTraceDone);
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
