// The arithmetic of libvmaf's serial binary64 sum (`sum += t[i]` for i = 0..n-1), reproduced in
// parallel and bit for bit. Compiled for the host (tests, the host model of the kernels) and for
// the device (kernels/exact_sum_kernels.hip): one copy of each step. docs/adr/0022 has the design
// and its proof; in short:
//
// While every partial sum S_i lies strictly inside one binade 2^e < |S_i| < 2^(e+1), every
// rounding happens on the grid u = 2^(e-52), so fl(S + t) = S + round_u(t): a sum of integers in
// units of u. round_u(t) is certain except for an exact tie, which goes to the even result and so
// depends only on the parity of S / u. A run of terms is therefore summarised, for an even and
// for an odd incoming sum, by the integer it adds and the lowest and highest partial sums it
// passes (`ExactSumPiece`); pieces combine associatively, so blocks summarise in parallel. When
// the true running sum arrives, the summary is applied only if the incoming sum is on the grid
// and every partial sum is strictly inside the binade: a check in exact integers, so a wrong
// guess of the binade can cost time (a serial pass, or the host's serial sum) but never a bit.
#ifndef SSIMD_KERNELS_EXACT_SUM_MATH_H_
#define SSIMD_KERNELS_EXACT_SUM_MATH_H_

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "kernels/hd.h"

namespace ssimd {

// Terms per segment: the unit the binade is guessed for, summarised by one lane group, and
// summed serially where the running sum may cross a binade inside it.
inline constexpr int kExactSumSegmentTerms = 256;
// A segment is summarised by a group of this many lanes, each folding this many consecutive terms.
inline constexpr int kExactSumGroupLanes = 32;
inline constexpr int kExactSumTermsPerLane = kExactSumSegmentTerms / kExactSumGroupLanes;
// Segments per thread block of the segment kernels; a block also summarises its segments together
// when they share one grid (a "block piece"), so that long runs combine 8 times fewer pieces.
inline constexpr int kExactSumSegmentsPerBlock = 8;
// Threads of a block that combines one run's pieces.
inline constexpr int kExactSumRunThreads = 1024;
// At most this many runs (maximal stretches of segments with one guessed grid) per frame.
inline constexpr int kExactSumMaxRuns = 512;
// Terms the one chaining thread may add serially per frame (crossings, failed checks).
inline constexpr int64_t kExactSumSerialTermBudget = 64 * kExactSumSegmentTerms;
// Segments the chaining thread may apply one by one per frame, after runs' checks failed.
inline constexpr int64_t kExactSumSegmentStepBudget = 4096;
// Binades where summaries are used; outside them (sums near zero, subnormal or near overflow)
// segments are summed serially, so the grid scale 2^(52-e) is always a normal double.
inline constexpr int kExactSumMinExponent = -960;
inline constexpr int kExactSumMaxExponent = 1000;
// The grid value of a segment that must be summed serially.
inline constexpr int32_t kExactSumSerialGrid = INT32_MIN;

// Why a frame's sum did not come from the device (0: it did).
enum ExactSumFallback : int32_t {
  kExactSumOnDevice = 0,
  kExactSumTooManyRuns = 1,   // more than kExactSumMaxRuns binade changes
  kExactSumSerialBudget = 2,  // crossings or failed checks needed more serial work than allowed
};

// Summary of a run of terms on one grid, for an incoming sum of even (index 0) or odd (1) units.
struct ExactSumPiece {
  int64_t added[2];    // what the run adds, in units of the grid
  int64_t lowest[2];   // the lowest partial sum after any of its terms, relative to the start
  int64_t highest[2];  // the highest one
  int32_t state;       // kPieceEmpty, kPieceValid or kPieceInvalid
  int32_t padding;
};

inline constexpr int32_t kPieceEmpty = 0;
inline constexpr int32_t kPieceValid = 1;
inline constexpr int32_t kPieceInvalid = 2;  // a value out of range: the run cannot be applied

// Bound on every integer of a valid piece: sums of two never overflow int64, and any run whose
// values approach it leaves its binade (whose span is 2^53 units) anyway.
inline constexpr int64_t kExactSumPieceLimit = int64_t{1} << 60;

SSIMD_HD inline ExactSumPiece EmptyExactSumPiece() {
  ExactSumPiece p;
  for (int q = 0; q < 2; ++q) p.added[q] = p.lowest[q] = p.highest[q] = 0;
  p.state = kPieceEmpty;
  p.padding = 0;
  return p;
}

SSIMD_HD inline ExactSumPiece InvalidExactSumPiece() {
  ExactSumPiece p = EmptyExactSumPiece();
  p.state = kPieceInvalid;
  return p;
}

// A double's bits and back (memcpy is a register move on host and device).
SSIMD_HD inline uint64_t ExactSumBitsOf(double x) {
  uint64_t bits;
  memcpy(&bits, &x, sizeof(bits));
  return bits;
}
SSIMD_HD inline double ExactSumDoubleOf(uint64_t bits) {
  double x;
  memcpy(&x, &bits, sizeof(x));
  return x;
}

// 2^k for -1022 <= k <= 1023 (a normal double), built from its exponent field: cheaper on a
// device than ldexp, which handles every range.
SSIMD_HD inline double ExactSumPowerOfTwo(int k) {
  return ExactSumDoubleOf(static_cast<uint64_t>(k + 1023) << 52);
}

// 1/u for the grid of binade e: multiplying by it is exact (a power of two) unless the product
// overflows or underflows.
SSIMD_HD inline double ExactSumGridScale(int e) { return ExactSumPowerOfTwo(52 - e); }

SSIMD_HD inline bool WithinPieceLimit(int64_t v) {
  return v <= kExactSumPieceLimit && v >= -kExactSumPieceLimit;
}

// One term as a piece: round_u(t) in units of u, to the even total on an exact tie. `scale` is
// ExactSumGridScale(e). A product below 2^-1022 may lose bits, but it is then far below 1/2 and
// rounds to 0 either way, without a tie.
SSIMD_HD inline ExactSumPiece ExactSumTermPiece(double term, double scale) {
  const double scaled = term * scale;
  if (!(fabs(scaled) < 0x1p60)) return InvalidExactSumPiece();  // also NaN and infinities
  const double below = floor(scaled);
  const double fraction = scaled - below;  // exact: both are multiples of the same power of two
  const int64_t down = static_cast<int64_t>(below);
  ExactSumPiece p = EmptyExactSumPiece();
  p.state = kPieceValid;
  for (int parity = 0; parity < 2; ++parity) {
    int64_t r = down;
    if (fraction > 0.5) {
      r = down + 1;
    } else if (fraction == 0.5) {
      r = down + ((parity + down) & 1);  // the neighbour whose total is even
    }
    p.added[parity] = p.lowest[parity] = p.highest[parity] = r;
  }
  return p;
}

// v[index] for an index of 0 or 1 known only at run time, as a select: a device then keeps the
// piece in registers (indexing would move it to local memory).
SSIMD_HD inline int64_t PieceHalf(const int64_t (&v)[2], int index) { return index ? v[1] : v[0]; }

// One half of combining `first` then `second`: the half for an incoming sum of parity `parity`,
// into `out`. False when a value leaves the piece limit.
SSIMD_HD inline bool CombineExactSumPieceHalf(const ExactSumPiece& first,
                                              const ExactSumPiece& second, int parity,
                                              ExactSumPiece* out) {
  const int64_t head = first.added[parity];
  const int next = static_cast<int>((parity + head) & 1);  // parity after `first`
  const int64_t added = head + PieceHalf(second.added, next);
  const int64_t low = head + PieceHalf(second.lowest, next);
  const int64_t high = head + PieceHalf(second.highest, next);
  out->added[parity] = added;
  out->lowest[parity] = first.lowest[parity] < low ? first.lowest[parity] : low;
  out->highest[parity] = first.highest[parity] > high ? first.highest[parity] : high;
  return WithinPieceLimit(added) && WithinPieceLimit(out->lowest[parity]) &&
         WithinPieceLimit(out->highest[parity]);
}

// The piece of `first` followed by `second`, computing `halves` halves: 2 in general, 1 when
// both pieces are uniform (IsUniformExactSumPiece), whose second half then equals the first.
SSIMD_HD inline ExactSumPiece CombineExactSumPieceHalves(const ExactSumPiece& first,
                                                         const ExactSumPiece& second,
                                                         int halves) {
  if (first.state == kPieceEmpty) return second;
  if (second.state == kPieceEmpty) return first;
  if (first.state != kPieceValid || second.state != kPieceValid) return InvalidExactSumPiece();
  ExactSumPiece out = EmptyExactSumPiece();
  out.state = kPieceValid;
  for (int parity = 0; parity < halves; ++parity) {
    if (!CombineExactSumPieceHalf(first, second, parity, &out)) return InvalidExactSumPiece();
  }
  if (halves == 1) {
    out.added[1] = out.added[0];
    out.lowest[1] = out.lowest[0];
    out.highest[1] = out.highest[0];
  }
  return out;
}

// The piece of `first` followed by `second`. Associative, so any tree of combinations that keeps
// the terms' order gives the same piece.
SSIMD_HD inline ExactSumPiece CombineExactSumPieces(const ExactSumPiece& first,
                                                    const ExactSumPiece& second) {
  return CombineExactSumPieceHalves(first, second, 2);
}

// Whether a piece is the same for an even and an odd incoming sum, as every piece without an
// exact tie is.
SSIMD_HD inline bool IsUniformExactSumPiece(const ExactSumPiece& p) {
  return p.added[0] == p.added[1] && p.lowest[0] == p.lowest[1] && p.highest[0] == p.highest[1];
}

// CombineExactSumPieces for two uniform pieces, computing one half: the second piece reads the
// same whatever parity the first leaves, so both halves of the result are equal. Lane groups whose
// pieces are all uniform (no tie among their terms) combine this way, moving half the values.
SSIMD_HD inline ExactSumPiece CombineUniformExactSumPieces(const ExactSumPiece& first,
                                                           const ExactSumPiece& second) {
  return CombineExactSumPieceHalves(first, second, 1);
}

// The piece of terms[from..to) (0 <= from, to <= kMaxTerms) folded left to right, each term as
// ExactSumTermPiece gives it; `scale` is ExactSumGridScale(e). Without an exact tie every term
// rounds the same way for an even and an odd incoming sum, so one integer walk gives both halves
// of the piece; a tie (rare in real frames) takes the general fold. Same result as the general
// fold, including its invalid pieces. Loops have a fixed length so that a device keeps `terms`
// in registers.
template <int kMaxTerms>
SSIMD_HD inline ExactSumPiece FoldExactSumTermRange(const double (&terms)[kMaxTerms], int from,
                                                    int to, double scale) {
  int64_t total = 0;
  int64_t lowest = 0;
  int64_t highest = 0;
  bool tie = false;
  bool invalid = false;
#if defined(__CUDACC__) || defined(__HIPCC__)
#pragma unroll
#endif
  for (int k = 0; k < kMaxTerms; ++k) {
    if (k < from || k >= to) continue;
    const double scaled = terms[k] * scale;
    invalid |= !(fabs(scaled) < 0x1p60);  // also NaN and infinities
    const double below = floor(invalid ? 0.0 : scaled);
    const double fraction = scaled - below;
    tie |= fraction == 0.5;
    total += static_cast<int64_t>(below) + (fraction > 0.5 ? 1 : 0);
    invalid |= !WithinPieceLimit(total);
    lowest = (k == from || total < lowest) ? total : lowest;
    highest = (k == from || total > highest) ? total : highest;
  }
  if (to <= from) return EmptyExactSumPiece();
  if (invalid) return InvalidExactSumPiece();
  if (tie) {
    ExactSumPiece piece = EmptyExactSumPiece();
#if defined(__CUDACC__) || defined(__HIPCC__)
#pragma unroll
#endif
    for (int k = 0; k < kMaxTerms; ++k) {
      if (k >= from && k < to) {
        piece = CombineExactSumPieces(piece, ExactSumTermPiece(terms[k], scale));
      }
    }
    return piece;
  }
  ExactSumPiece piece = EmptyExactSumPiece();
  piece.state = kPieceValid;
  for (int parity = 0; parity < 2; ++parity) {
    piece.added[parity] = total;
    piece.lowest[parity] = lowest;
    piece.highest[parity] = highest;
  }
  return piece;
}

// FoldExactSumTermRange over terms[0..n).
template <int kMaxTerms>
SSIMD_HD inline ExactSumPiece FoldExactSumTerms(const double (&terms)[kMaxTerms], int n,
                                                double scale) {
  return FoldExactSumTermRange(terms, 0, n, scale);
}

// A run's segments [first, end) as the elements its piece is combined from, in order: single
// segments up to the first whole block of kExactSumSegmentsPerBlock segments, the whole blocks
// (block pieces), then the segments after the last whole block.
struct ExactSumRunElements {
  int32_t first;        // segments [first, head_end) one by one
  int32_t head_end;
  int32_t block_begin;  // then blocks [block_begin, block_end)
  int32_t block_end;
  int32_t tail_begin;   // then segments [tail_begin, end)
  int32_t end;
};

SSIMD_HD inline ExactSumRunElements RunElementsOf(int32_t first, int32_t end) {
  const int32_t per_block = kExactSumSegmentsPerBlock;
  const int32_t first_block = (first + per_block - 1) / per_block;
  const int32_t end_block = end / per_block;
  ExactSumRunElements e;
  e.first = first;
  e.end = end;
  if (first_block < end_block) {
    e.head_end = first_block * per_block;
    e.block_begin = first_block;
    e.block_end = end_block;
    e.tail_begin = end_block * per_block;
  } else {
    e.head_end = end;
    e.block_begin = e.block_end = 0;
    e.tail_begin = end;
  }
  return e;
}

SSIMD_HD inline int32_t RunElementCount(const ExactSumRunElements& e) {
  return (e.head_end - e.first) + (e.block_end - e.block_begin) + (e.end - e.tail_begin);
}

// Element k (0 <= k < RunElementCount) of a run: a segment's piece or a block's.
SSIMD_HD inline const ExactSumPiece& RunElementPiece(const ExactSumRunElements& e, int32_t k,
                                                     const ExactSumPiece* segment_pieces,
                                                     const ExactSumPiece* block_pieces) {
  const int32_t head = e.head_end - e.first;
  if (k < head) return segment_pieces[e.first + k];
  const int32_t blocks = e.block_end - e.block_begin;
  if (k < head + blocks) return block_pieces[e.block_begin + (k - head)];
  return segment_pieces[e.tail_begin + (k - head - blocks)];
}

// Whether every partial sum between `low` and `high` (in units of the grid of binade e, that is
// the binade's span is [2^52, 2^53)) lies strictly inside the binade, on one side of zero.
SSIMD_HD inline bool StrictlyInsideBinade(int64_t low, int64_t high) {
  const int64_t binade_low = int64_t{1} << 52;
  const int64_t binade_high = int64_t{1} << 53;
  return (low > binade_low && high < binade_high) || (high < -binade_low && low > -binade_high);
}

// A multiple of the grid of binade e as a double (exact: |units| < 2^60).
SSIMD_HD inline double ExactSumGridValue(int64_t units, int e) {
  return static_cast<double>(units) * ExactSumPowerOfTwo(e - 52);
}

// Applies a run summarised on the grid of binade e to the true running sum `sum`. Returns false,
// leaving `out` alone, unless all of these hold, which make the result the serial sum's bit for
// bit: `sum` is a multiple of u; every partial sum lies strictly inside the binade (on one side
// of zero); the piece is valid. Strictly inside means the exact sum S + t is too (it is within
// u/2 of the partial), so binary64 rounds it on the grid u, as the piece did.
SSIMD_HD inline bool ApplyExactSumPiece(double sum, int e, const ExactSumPiece& piece,
                                        double* out) {
  if (piece.state == kPieceEmpty) {
    *out = sum;
    return true;
  }
  if (piece.state != kPieceValid) return false;
  const double scaled = sum * ExactSumGridScale(e);
  if (!(fabs(scaled) < 0x1p60) || scaled != floor(scaled)) return false;
  const int64_t start = static_cast<int64_t>(scaled);
  const int parity = static_cast<int>(start & 1);
  if (!StrictlyInsideBinade(start + PieceHalf(piece.lowest, parity),
                            start + PieceHalf(piece.highest, parity))) {
    return false;
  }
  *out = ExactSumGridValue(start + PieceHalf(piece.added, parity), e);
  return true;
}

// The binade e (2^e <= |x| < 2^(e+1)) that every value within `margin` of `approx` shares, or
// kExactSumSerialGrid when they do not share one or it is outside the summarised range.
SSIMD_HD inline int32_t CertainBinade(double approx, double margin) {
  const double magnitude = fabs(approx);
  const double low = magnitude - margin;
  const double high = magnitude + margin;
  if (!(low > 0) || !(high < 0x1p1000)) return kExactSumSerialGrid;  // also NaN
  // Exponent fields: a subnormal `low` reads as binade -1023, outside the summarised range.
  const int low_exponent = static_cast<int>(ExactSumBitsOf(low) >> 52) - 1023;
  const int high_exponent = static_cast<int>(ExactSumBitsOf(high) >> 52) - 1023;
  if (low_exponent != high_exponent) return kExactSumSerialGrid;
  if (low_exponent < kExactSumMinExponent || low_exponent > kExactSumMaxExponent) {
    return kExactSumSerialGrid;
  }
  return low_exponent;
}

// The grid guessed for a segment whose running sum is about `start` before it and `end` after it,
// each within `margin` of the serial sum's: their common certain binade, or serial.
SSIMD_HD inline int32_t GuessSegmentGrid(double start, double end, double margin) {
  const int32_t e = CertainBinade(start, margin);
  if (e == kExactSumSerialGrid || CertainBinade(end, margin) != e || (start < 0) != (end < 0)) {
    return kExactSumSerialGrid;
  }
  return e;
}

// How far an approximate prefix sum (any order) is taken to be from the serial one, with `terms`
// terms whose absolute values sum to about `abs_sum`. The worst case, about 2 n 2^-53 sum|t|,
// would mark thousands of segments around each crossing as serial at 4K; rounding errors
// accumulate like a random walk, about sqrt(n) 2^-53 sum|t|, and this is 64 times that. Only
// speed depends on it: a guess it makes wrong is caught by ApplyExactSumPiece and costs a
// segment-by-segment pass over one run.
SSIMD_HD inline double ExactSumMargin(int64_t terms, double abs_sum) {
  return sqrt(static_cast<double>(terms)) * abs_sum * 0x1p-47;
}

// A stretch of segments with one grid (or kExactSumSerialGrid), from `first_segment` up to the
// next run's.
struct ExactSumRun {
  int32_t first_segment;
  int32_t grid;
};

struct ExactSumOutcome {
  double sum;
  int32_t fallback;   // ExactSumFallback
  int32_t runs;
  int64_t serial_terms;   // terms added one by one
  int64_t segment_steps;  // segments applied one by one after a run's check failed
};

// Adds terms[0..n) one by one, if the serial budget allows.
SSIMD_HD inline bool AddSerially(const double* terms, int n, double* sum,
                                 ExactSumOutcome* outcome) {
  if (outcome->serial_terms + n > kExactSumSerialTermBudget) {
    outcome->fallback = kExactSumSerialBudget;
    return false;
  }
  outcome->serial_terms += n;
  constexpr int kChunk = 32;
  if (n < kChunk) {  // the few terms around a binade crossing: a plain loop
    double s = *sum;
    for (int i = 0; i < n; ++i) s += terms[i];
    *sum = s;
    return true;
  }
  // The additions are a chain, but the loads are not: the next chunk's loads are issued before
  // the current chunk is added, so one device thread waits for memory once, not once a chunk.
  double s = *sum;
  double current[kChunk];
  double next[kChunk];
#if defined(__CUDACC__) || defined(__HIPCC__)
#pragma unroll
#endif
  for (int k = 0; k < kChunk; ++k) current[k] = k < n ? terms[k] : 0.0;
  for (int i = 0; i < n; i += kChunk) {
    const int count = n - i < kChunk ? n - i : kChunk;
#if defined(__CUDACC__) || defined(__HIPCC__)
#pragma unroll
#endif
    for (int k = 0; k < kChunk; ++k) next[k] = i + kChunk + k < n ? terms[i + kChunk + k] : 0.0;
    // In order, and only the terms (adding 0.0 would turn -0.0 into +0.0). A full chunk adds
    // without conditions: a condition per term would put a select after every addition on the
    // serial path.
    if (count == kChunk) {
#if defined(__CUDACC__) || defined(__HIPCC__)
#pragma unroll
#endif
      for (int k = 0; k < kChunk; ++k) s += current[k];
    } else {
#if defined(__CUDACC__) || defined(__HIPCC__)
#pragma unroll
#endif
      for (int k = 0; k < kChunk; ++k) {
        if (k < count) s += current[k];
      }
    }
#if defined(__CUDACC__) || defined(__HIPCC__)
#pragma unroll
#endif
    for (int k = 0; k < kChunk; ++k) current[k] = next[k];
  }
  *sum = s;
  return true;
}

// How the chain crosses a segment the plan marked serial (its running sum may leave a binade in
// it, or be near zero): terms [0, head_end) summarised on head_grid, terms [head_end, tail_begin)
// added one by one, terms [tail_begin, n) summarised on tail_grid. Found from approximate partial
// sums after each term, so a rising crossing costs the few terms around it, not the segment's 256.
// Applied only when both pieces' checks pass; otherwise the whole segment is added term by term.
struct ExactSumCrossing {
  ExactSumPiece head;  // empty when head_end == 0
  ExactSumPiece tail;  // empty when tail_begin == n
  int32_t head_grid;
  int32_t tail_grid;
  int32_t head_end;
  int32_t tail_begin;
};

// Where a crossing's head ends and its tail begins, for a segment of n terms. The grids are the
// ones certain for the approximate partial sums (CertainBinade): `start_grid` before the first
// term, `first_grid` after it, `last_grid` after the last. `first_other` is the first term whose
// partial sum's grid is not first_grid (n if none), `last_other` one past the last term whose
// partial sum's grid is not last_grid (0 if none). A piece needs the sum it starts from on its
// grid, so the head needs the start's grid to be its own, and the tail starts one term after the
// last change of grid: that term, whose partial sum is the first on the tail's grid, is added
// serially.
SSIMD_HD inline void PlaceCrossing(int32_t start_grid, int32_t first_grid, int32_t last_grid,
                                   int first_other, int last_other, int n,
                                   ExactSumCrossing* crossing) {
  crossing->head_grid = first_grid;
  crossing->tail_grid = last_grid;
  const bool head = first_grid != kExactSumSerialGrid && start_grid == first_grid;
  crossing->head_end = head ? first_other : 0;
  int tail_begin = n;
  if (last_grid != kExactSumSerialGrid) {
    tail_begin = (last_other == 0 && start_grid == last_grid) ? 0 : last_other + 1;
  }
  crossing->tail_begin = tail_begin > crossing->head_end ? tail_begin : crossing->head_end;
}

// Whether a crossing summary covers a segment of n terms consistently and saves serial terms:
// pieces present exactly where their ranges are not empty.
SSIMD_HD inline bool UsableCrossing(const ExactSumCrossing* c, int n) {
  if (c == nullptr || c->head_end < 0 || c->head_end > c->tail_begin || c->tail_begin > n) {
    return false;
  }
  if ((c->head_end > 0) != (c->head.state != kPieceEmpty)) return false;
  if ((c->tail_begin < n) != (c->tail.state != kPieceEmpty)) return false;
  return c->head_end > 0 || c->tail_begin < n;
}

// What AddSerialSegment did.
enum ExactSumSegmentAdded : int32_t {
  kSegmentAdded = 0,  // every term of the segment
  kTailLeft = 1,      // all but the crossing's tail, which the run after it applies
  kOutOfBudget = 2,   // the serial budget ran out (the outcome says so)
};

// Adds a segment of n terms that the plan marked serial: through its crossing (when it is usable
// and the pieces' checks pass), else term by term. `head_added`: the crossing's head came with
// the run before it (only where RunMerges merged it, so the crossing is usable), and the segment
// continues from head_end. `leave_tail`: the run after it applies the tail (RunMerges), so the
// crossing stops before it; when the crossing cannot be used the whole rest is added here.
SSIMD_HD inline ExactSumSegmentAdded AddSerialSegment(const double* terms,
                                                      const ExactSumCrossing* crossing, int n,
                                                      bool head_added, bool leave_tail,
                                                      double* sum, ExactSumOutcome* outcome) {
  const int from = head_added ? crossing->head_end : 0;
  if (UsableCrossing(crossing, n)) {
    double s = *sum;
    if (head_added || ApplyExactSumPiece(s, crossing->head_grid, crossing->head, &s)) {
      if (!AddSerially(terms + crossing->head_end, crossing->tail_begin - crossing->head_end, &s,
                       outcome)) {
        return kOutOfBudget;
      }
      if (leave_tail) {
        *sum = s;
        return kTailLeft;
      }
      if (ApplyExactSumPiece(s, crossing->tail_grid, crossing->tail, &s)) {
        *sum = s;
        return kSegmentAdded;
      }
    }
  }
  return AddSerially(terms + from, n - from, sum, outcome) ? kSegmentAdded : kOutOfBudget;
}

// Terms in segment j of a frame of `count` terms.
SSIMD_HD inline int ExactSumSegmentLength(int64_t count, int32_t segment) {
  const int64_t left = count - static_cast<int64_t>(segment) * kExactSumSegmentTerms;
  return left < kExactSumSegmentTerms ? static_cast<int>(left) : kExactSumSegmentTerms;
}

// Bits of a run's merges (RunMerges).
inline constexpr int32_t kMergedTail = 1;  // the run's piece starts with the tail before it
inline constexpr int32_t kMergedHead = 2;  // and ends with the head after it

// Which parts of the crossings around a run on grid `grid` its piece takes in, so that the chain
// applies them with the run (one check instead of three): the tail of `before` (the crossing of the
// segment just before the run, the last of a serial run; null if none) when it is on the run's
// grid, and the head of `after` (the segment just after the run, the first of a serial run; null
// if none) likewise. `before_n` and `after_n` are those segments' lengths.
SSIMD_HD inline int32_t RunMerges(int32_t grid, const ExactSumCrossing* before, int before_n,
                                  const ExactSumCrossing* after, int after_n) {
  int32_t merges = 0;
  if (before != nullptr && UsableCrossing(before, before_n) && before->tail_begin < before_n &&
      before->tail_grid == grid) {
    merges |= kMergedTail;
  }
  if (after != nullptr && UsableCrossing(after, after_n) && after->head_end > 0 &&
      after->head_grid == grid) {
    merges |= kMergedHead;
  }
  return merges;
}

// Run r (with a grid) of `run_count` over `segment_count` segments of `count` terms: the
// crossings next to it (the segment before and the one after, where they belong to serial runs)
// and the merges it makes with them (RunMerges).
struct ExactSumRunNeighbours {
  const ExactSumCrossing* before;
  const ExactSumCrossing* after;
  int32_t merges;
};

SSIMD_HD inline ExactSumRunNeighbours NeighboursOfRun(const ExactSumRun* runs, int32_t run_count,
                                                      int32_t r, int32_t segment_count,
                                                      int64_t count,
                                                      const ExactSumCrossing* crossings) {
  const int32_t first = runs[r].first_segment;
  const int32_t end = r + 1 < run_count ? runs[r + 1].first_segment : segment_count;
  const bool serial_before = r > 0 && runs[r - 1].grid == kExactSumSerialGrid;
  const bool serial_after = r + 1 < run_count && runs[r + 1].grid == kExactSumSerialGrid;
  ExactSumRunNeighbours n;
  n.before = serial_before ? &crossings[first - 1] : nullptr;
  n.after = serial_after ? &crossings[end] : nullptr;
  n.merges = RunMerges(runs[r].grid, n.before, kExactSumSegmentTerms, n.after,
                       serial_after ? ExactSumSegmentLength(count, end) : 0);
  return n;
}

// A run's own piece with the crossing parts it merges put before and after.
SSIMD_HD inline ExactSumPiece MergedRunPiece(const ExactSumRunNeighbours& n, ExactSumPiece piece) {
  if (n.merges & kMergedTail) piece = CombineExactSumPieces(n.before->tail, piece);
  if (n.merges & kMergedHead) piece = CombineExactSumPieces(piece, n.after->head);
  return piece;
}


// Terms and crossing summaries of segment j, straight from the frame's arrays; the device's chain
// passes a source that reads segments it staged in fast memory instead (same interface:
// `const double* Of(int32_t)`, then `const ExactSumCrossing* CrossingOf(int32_t)` for the same
// segment).
struct SegmentTermsInPlace {
  const double* terms;
  const ExactSumCrossing* crossings;  // indexed by segment
  SSIMD_HD const double* Of(int32_t segment) const {
    return terms + static_cast<int64_t>(segment) * kExactSumSegmentTerms;
  }
  SSIMD_HD const ExactSumCrossing* CrossingOf(int32_t segment) const {
    return crossings + segment;
  }
};

// The serial chain over runs, by one thread. A summarised run is applied when its check passes,
// with the crossing parts it merged (RunMerges); when it fails (the guessed grid was wrong
// somewhere in the run) a merged tail is applied alone (or added term by term), the run's
// segments are applied one by one, each checked, and a segment whose check fails is added term by
// term. A serial run's segments are crossed through their crossing summaries (AddSerialSegment).
// Serial terms and segment steps have budgets; past them the frame falls back.
// `run_pieces[r]` summarises run r with its merges `run_merges[r]`, `segment_pieces[j]` segment j
// on the run's grid (both unused for serial runs); `source.Of(j)` gives segment j's terms and
// `source.CrossingOf(j)` its crossing summary.
template <typename SegmentTerms>
SSIMD_HD inline ExactSumOutcome ChainExactSumRuns(SegmentTerms& source, int64_t count,
                                                  const ExactSumRun* runs, int32_t run_count,
                                                  int32_t segment_count,
                                                  const ExactSumPiece* run_pieces,
                                                  const int32_t* run_merges,
                                                  const ExactSumPiece* segment_pieces) {
  ExactSumOutcome outcome;
  outcome.sum = 0.0;
  outcome.fallback = kExactSumOnDevice;
  outcome.runs = run_count;
  outcome.serial_terms = 0;
  outcome.segment_steps = 0;
  if (run_count > kExactSumMaxRuns) {
    outcome.fallback = kExactSumTooManyRuns;
    return outcome;
  }
  double sum = 0.0;
  bool tail_left = false;   // the segment before the next run still has its tail to add
  bool head_added = false;  // the segment after the last run had its head added with it
  for (int32_t r = 0; r < run_count; ++r) {
    const int32_t first = runs[r].first_segment;
    const int32_t end_segment = r + 1 < run_count ? runs[r + 1].first_segment : segment_count;
    const int32_t grid = runs[r].grid;
    if (grid != kExactSumSerialGrid) {
      const int32_t merges = run_merges[r];
      // The merged piece fits only if the segment before left exactly the tail it takes in.
      if (tail_left == ((merges & kMergedTail) != 0) &&
          ApplyExactSumPiece(sum, grid, run_pieces[r], &sum)) {
        tail_left = false;
        head_added = (merges & kMergedHead) != 0;
        continue;
      }
      if (tail_left) {
        const double* before = source.Of(first - 1);
        const ExactSumCrossing* crossing = source.CrossingOf(first - 1);
        if (!ApplyExactSumPiece(sum, crossing->tail_grid, crossing->tail, &sum) &&
            !AddSerially(before + crossing->tail_begin,
                         ExactSumSegmentLength(count, first - 1) - crossing->tail_begin, &sum,
                         &outcome)) {
          return outcome;
        }
        tail_left = false;
      }
      head_added = false;
      for (int32_t j = first; j < end_segment; ++j) {
        if (++outcome.segment_steps > kExactSumSegmentStepBudget) {
          outcome.fallback = kExactSumSerialBudget;
          return outcome;
        }
        if (ApplyExactSumPiece(sum, grid, segment_pieces[j], &sum)) continue;
        if (!AddSerially(source.Of(j), ExactSumSegmentLength(count, j), &sum, &outcome)) {
          return outcome;
        }
      }
      continue;
    }
    const bool next_takes_tail = r + 1 < run_count && (run_merges[r + 1] & kMergedTail) != 0;
    for (int32_t j = first; j < end_segment; ++j) {
      const double* terms = source.Of(j);
      const ExactSumSegmentAdded added = AddSerialSegment(
          terms, source.CrossingOf(j), ExactSumSegmentLength(count, j), j == first && head_added,
          j + 1 == end_segment && next_takes_tail, &sum, &outcome);
      if (added == kOutOfBudget) return outcome;
      tail_left = added == kTailLeft;
    }
    head_added = false;
  }
  outcome.sum = sum;
  return outcome;
}

}  // namespace ssimd

#endif  // SSIMD_KERNELS_EXACT_SUM_MATH_H_
