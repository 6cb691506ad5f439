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
// Segments per thread block of the single-pass kernel: a block summarises its segments together
// when they share one grid (a "block piece"), which is what its successors combine. Its threads'
// lane groups take the segments in rounds, one segment per group a round.
inline constexpr int kExactSumSegmentsPerBlock = 16;
inline constexpr int kExactSumBlockTerms = kExactSumSegmentsPerBlock * kExactSumSegmentTerms;
inline constexpr int kExactSumBlockThreads = 256;
static_assert(kExactSumSegmentsPerBlock % (kExactSumBlockThreads / kExactSumGroupLanes) == 0,
              "every group takes the same number of segments");
static_assert(kExactSumSegmentsPerBlock <= kExactSumGroupLanes, "one group combines the block");
// Terms a frame may add one by one (crossings, failed checks) before the device gives the frame to
// the host: the device's serial additions run one block after another, so a frame whose sum keeps
// changing binade (oscillating around zero) would be slower there than on the host.
inline constexpr int64_t kExactSumSerialTermBudget = 64 * kExactSumSegmentTerms;
// Binades where summaries are used; outside them (sums near zero, subnormal or near overflow)
// segments are summed serially, so the grid scale 2^(52-e) is always a normal double.
inline constexpr int kExactSumMinExponent = -960;
inline constexpr int kExactSumMaxExponent = 1000;
// The grid value of a segment that must be summed serially.
inline constexpr int32_t kExactSumSerialGrid = INT32_MIN;
// The grid value of a block's segment past the frame's last term (the last block only).
inline constexpr int32_t kExactSumNoSegment = INT32_MAX;

// Why a frame's sum did not come from the device (0: it did).
enum ExactSumFallback : int32_t {
  kExactSumOnDevice = 0,
  kExactSumSerialBudget = 1,  // crossings or failed checks needed more serial work than allowed
  kExactSumCheckFailed = 2,   // a run's piece, expected to fit its binade, did not
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
// segment-by-segment pass over one block.
SSIMD_HD inline double ExactSumMargin(int64_t terms, double abs_sum) {
  return sqrt(static_cast<double>(terms)) * abs_sum * 0x1p-47;
}

struct ExactSumOutcome {
  double sum;
  int32_t fallback;        // ExactSumFallback
  int32_t ordered_blocks;  // blocks that waited for the exact sum before them (JoinsExactSumRun)
  int64_t serial_terms;    // terms added one by one
};

// Adds terms[first..first+n) one by one to *sum. `Terms` is indexed like a pointer: the frame's
// terms on the host, the block's terms staged in fast memory on the device. The loads of a chunk
// are issued before its additions, which stay in order, so a device thread waits for memory once a
// chunk, not once a term.
template <typename Terms>
SSIMD_HD inline void AddSerially(const Terms& terms, int first, int n, double* sum) {
  constexpr int kChunk = 8;
  double s = *sum;
  int i = 0;
  for (; i + kChunk <= n; i += kChunk) {
    double chunk[kChunk];
#if defined(__CUDACC__) || defined(__HIPCC__)
#pragma unroll
#endif
    for (int k = 0; k < kChunk; ++k) chunk[k] = terms[first + i + k];
#if defined(__CUDACC__) || defined(__HIPCC__)
#pragma unroll
#endif
    for (int k = 0; k < kChunk; ++k) s += chunk[k];
  }
  for (; i < n; ++i) s += terms[first + i];
  *sum = s;
}

// How a segment marked serial (its running sum may leave a binade in it, or be near zero) is
// crossed: terms [0, head_end) summarised on head_grid, terms [head_end, tail_begin) added one by
// one, terms [tail_begin, n) summarised on tail_grid. Found from approximate partial sums after
// each term, so a rising crossing costs the few terms around it, not the segment's 256. Applied
// only when both pieces' checks pass; otherwise the whole segment is added term by term.
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

// Adds a segment of n terms (terms[first..first+n)) that was marked serial: through its crossing
// when it is usable and the pieces' checks pass, else term by term. Returns the terms added one
// by one.
template <typename Terms>
SSIMD_HD inline int AddSerialSegment(const Terms& terms, int first,
                                     const ExactSumCrossing* crossing, int n, double* sum) {
  if (UsableCrossing(crossing, n)) {
    double s = *sum;
    if (ApplyExactSumPiece(s, crossing->head_grid, crossing->head, &s)) {
      const int middle = crossing->tail_begin - crossing->head_end;
      AddSerially(terms, first + crossing->head_end, middle, &s);
      if (ApplyExactSumPiece(s, crossing->tail_grid, crossing->tail, &s)) {
        *sum = s;
        return middle;
      }
    }
  }
  AddSerially(terms, first, n, sum);
  return n;
}

// Terms in segment j of a frame of `count` terms (0 past its end).
SSIMD_HD inline int ExactSumSegmentLength(int64_t count, int64_t segment) {
  const int64_t left = count - segment * kExactSumSegmentTerms;
  if (left <= 0) return 0;
  return left < kExactSumSegmentTerms ? static_cast<int>(left) : kExactSumSegmentTerms;
}

// The grid all present segments of a block share (`grids` has kExactSumSegmentsPerBlock entries,
// kExactSumNoSegment past the frame's end), or kExactSumSerialGrid when they do not share one.
SSIMD_HD inline int32_t ExactSumBlockGrid(const int32_t* grids) {
  int32_t grid = grids[0];
  for (int k = 1; k < kExactSumSegmentsPerBlock; ++k) {
    if (grids[k] != kExactSumNoSegment && grids[k] != grid) return kExactSumSerialGrid;
  }
  return grid;
}

// What a block of the single-pass sum has published for its successors. A block that joins a run
// (JoinsExactSumRun) publishes its block piece and is done; any other block is ordered: it waits
// for the exact sum before it, adds its segments in order and publishes its exact running sum.
inline constexpr int32_t kBlockNothingYet = 0;
inline constexpr int32_t kBlockGridKnown = 1;  // its grid (kExactSumSerialGrid if none)
inline constexpr int32_t kBlockPiece = 2;      // it joins a run: its block piece
inline constexpr int32_t kBlockOrdered = 3;    // it will publish its exact running sum

// Whether a run's piece that starts from the approximate running sum `approx_start` (within
// `margin` of the serial one) keeps every partial sum inside binade e whatever the true start
// within the margin and whatever its parity, with a few grid units to spare for this estimate's
// own roundings. A guide only: ApplyExactSumPiece still checks with the exact sum.
SSIMD_HD inline bool SurelyInsideBinade(double approx_start, double margin, int e,
                                        const ExactSumPiece& piece) {
  if (piece.state != kPieceValid) return false;
  const double scale = ExactSumGridScale(e);
  const double slack = margin * scale + 8.0;
  const double start = approx_start * scale;
  const int64_t lowest = piece.lowest[0] < piece.lowest[1] ? piece.lowest[0] : piece.lowest[1];
  const int64_t highest =
      piece.highest[0] > piece.highest[1] ? piece.highest[0] : piece.highest[1];
  const double low = start + static_cast<double>(lowest) - slack;
  const double high = start + static_cast<double>(highest) + slack;
  return (low > 0x1p52 && high < 0x1p53) || (high < -0x1p52 && low > -0x1p53);
}

// Whether a block joins a run: its segments share grid `grid` (ExactSumBlockGrid), its block
// piece surely fits the binade from its approximate start, and the block before it is on the same
// grid or has none (`previous_grid`, kExactSumSerialGrid before the frame's first block). The last
// condition makes the block before every run (its anchor) an ordered block, or the frame's start:
// a block whose predecessor is on another grid is ordered itself, so nobody ever needs the exact
// sum of a block that joined a run except through its run's piece.
SSIMD_HD inline bool JoinsExactSumRun(int32_t grid, const ExactSumPiece& block_piece,
                                      double approx_start, double margin,
                                      int32_t previous_grid) {
  return grid != kExactSumSerialGrid &&
         (previous_grid == grid || previous_grid == kExactSumSerialGrid) &&
         SurelyInsideBinade(approx_start, margin, grid, block_piece);
}

// Adds block b's terms to its exact starting sum segment by segment, for an ordered block: a
// segment with a grid by its piece when the check passes, else term by term; a serial segment
// through its crossing (AddSerialSegment). `block_terms[i]` is the block's term i; `grids`,
// `pieces` and `crossings` are its segments' (kExactSumSegmentsPerBlock of each). Returns the
// terms added one by one.
template <typename Terms>
SSIMD_HD inline int AddBlockInOrder(const Terms& block_terms, int64_t count, int64_t block,
                                    const int32_t* grids, const ExactSumPiece* pieces,
                                    const ExactSumCrossing* crossings, double* sum) {
  int serial = 0;
  for (int k = 0; k < kExactSumSegmentsPerBlock; ++k) {
    const int n = ExactSumSegmentLength(count, block * kExactSumSegmentsPerBlock + k);
    if (n == 0) break;
    const int first = k * kExactSumSegmentTerms;
    if (grids[k] == kExactSumSerialGrid) {
      serial += AddSerialSegment(block_terms, first, &crossings[k], n, sum);
    } else if (!ApplyExactSumPiece(*sum, grids[k], pieces[k], sum)) {
      AddSerially(block_terms, first, n, sum);
      serial += n;
    }
  }
  return serial;
}

// An ordered block's terms as at most three parts, combined before its starting sum is known, so
// that the exact stage on the frame's critical path checks two pieces and adds a few terms: `lead`
// (the run before the block, then the block's segments up to its serial stretch, with the head of
// that segment's crossing) on lead_grid, the block's terms [serial_begin, serial_end) one by one,
// and `trail` (the crossing's tail, then the segments after it) on trail_grid.
struct ExactSumBlockPlan {
  ExactSumPiece lead;
  ExactSumPiece trail;
  int32_t lead_grid;
  int32_t trail_grid;
  int32_t serial_begin;
  int32_t serial_end;
};

// Plans ordered block `block` after the run piece `run_piece` on `run_grid` (empty when no run
// precedes it), from its segments' grids, pieces and crossings. False when the block does not fit
// the plan (two serial stretches, two changes of grid, an invalid piece): the caller then applies
// the run piece and adds the block with AddBlockInOrder.
SSIMD_HD inline bool PlanOrderedBlock(const ExactSumPiece& run_piece, int32_t run_grid,
                                      int64_t count, int64_t block, const int32_t* grids,
                                      const ExactSumPiece* pieces,
                                      const ExactSumCrossing* crossings,
                                      ExactSumBlockPlan* plan) {
  plan->lead = run_piece;
  plan->lead_grid = run_grid;
  plan->trail = EmptyExactSumPiece();
  plan->trail_grid = run_grid;
  plan->serial_begin = plan->serial_end = -1;
  bool in_trail = false;
  int end = 0;
  for (int k = 0; k < kExactSumSegmentsPerBlock; ++k) {
    const int n = ExactSumSegmentLength(count, block * kExactSumSegmentsPerBlock + k);
    if (n == 0) break;
    const int first = k * kExactSumSegmentTerms;
    end = first + n;
    ExactSumPiece& part = in_trail ? plan->trail : plan->lead;
    int32_t& part_grid = in_trail ? plan->trail_grid : plan->lead_grid;
    if (grids[k] != kExactSumSerialGrid) {
      if (part.state == kPieceEmpty || part_grid == grids[k]) {
        part = CombineExactSumPieces(part, pieces[k]);
        part_grid = grids[k];
        continue;
      }
      if (in_trail) return false;  // a second change of grid
      in_trail = true;             // a change of grid at the segment's edge: no serial terms
      plan->serial_begin = plan->serial_end = first;
      plan->trail = pieces[k];
      plan->trail_grid = grids[k];
      continue;
    }
    if (in_trail) return false;  // a second serial stretch
    in_trail = true;
    const ExactSumCrossing& c = crossings[k];
    if (UsableCrossing(&c, n) && (c.head.state == kPieceEmpty || plan->lead.state == kPieceEmpty ||
                                  c.head_grid == plan->lead_grid)) {
      if (c.head.state != kPieceEmpty) {
        plan->lead = CombineExactSumPieces(plan->lead, c.head);
        plan->lead_grid = c.head_grid;
      }
      plan->serial_begin = first + c.head_end;
      plan->serial_end = first + c.tail_begin;
      plan->trail = c.tail;
      plan->trail_grid = c.tail_grid;
    } else {
      plan->serial_begin = first;
      plan->serial_end = first + n;
    }
  }
  if (!in_trail) plan->serial_begin = plan->serial_end = end;
  return plan->lead.state != kPieceInvalid && plan->trail.state != kPieceInvalid;
}

// Applies a plan from the exact sum before its run (`start`): the lead's check, the serial terms,
// the trail's check. False, leaving *sum alone, when a check fails.
template <typename Terms>
SSIMD_HD inline bool ApplyOrderedBlockPlan(double start, const ExactSumBlockPlan& plan,
                                           const Terms& block_terms, double* sum) {
  double s = start;
  if (!ApplyExactSumPiece(s, plan.lead_grid, plan.lead, &s)) return false;
  AddSerially(block_terms, plan.serial_begin, plan.serial_end - plan.serial_begin, &s);
  if (!ApplyExactSumPiece(s, plan.trail_grid, plan.trail, &s)) return false;
  *sum = s;
  return true;
}

// An ordered block's exact stage from the exact sum of the anchor before its run (`start`): its
// plan (null when it has none) when the plan's checks pass, else the run's piece on `run_grid`
// and the block segment by segment (AddBlockInOrder). False, leaving *sum alone, when the run's
// piece is refused too; *serial gets the terms added one by one.
template <typename Terms>
SSIMD_HD inline bool AddOrderedBlock(double start, const ExactSumBlockPlan* plan,
                                     const ExactSumPiece& run_piece, int32_t run_grid,
                                     const Terms& block_terms, int64_t count, int64_t block,
                                     const int32_t* grids, const ExactSumPiece* pieces,
                                     const ExactSumCrossing* crossings, double* sum,
                                     int* serial) {
  *serial = 0;
  if (plan != nullptr && ApplyOrderedBlockPlan(start, *plan, block_terms, sum)) {
    *serial = plan->serial_end - plan->serial_begin;
    return true;
  }
  double s = start;
  if (!ApplyExactSumPiece(s, run_grid, run_piece, &s)) return false;
  *serial = AddBlockInOrder(block_terms, count, block, grids, pieces, crossings, &s);
  *sum = s;
  return true;
}

}  // namespace ssimd

#endif  // SSIMD_KERNELS_EXACT_SUM_MATH_H_
