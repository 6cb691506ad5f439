#include "engine/gpu/exact_sum.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "kernels/float_ssim_math.h"
#include "kernels/integer_ssim_math.h"

namespace ssimd {
namespace {

// Combines `pieces` (a power of two of them) pairwise with doubling strides, as a lane group's
// shuffles (and a block's tree of group results) do: the terms' order is kept, the grouping
// differs from a left fold.
ExactSumPiece CombineAsBlockTree(std::vector<ExactSumPiece> pieces) {
  for (size_t stride = 1; stride < pieces.size(); stride *= 2) {
    for (size_t i = 0; i + stride < pieces.size(); i += 2 * stride) {
      pieces[i] = CombineExactSumPieces(pieces[i], pieces[i + stride]);
    }
  }
  return pieces.empty() ? EmptyExactSumPiece() : pieces[0];
}

// The piece of segment_terms[from..to) (of a segment of n terms) on grid e as a group of lanes
// builds it: each lane folds its part of the range among its kExactSumTermsPerLane consecutive
// terms, then the group's tree combines the lanes.
ExactSumPiece GroupPiece(const double* segment_terms, int n, int from, int to, int e) {
  const double scale = ExactSumGridScale(e);
  std::vector<ExactSumPiece> lanes(kExactSumGroupLanes, EmptyExactSumPiece());
  for (int lane = 0; lane < kExactSumGroupLanes; ++lane) {
    const int lane_first = lane * kExactSumTermsPerLane;
    double values[kExactSumTermsPerLane] = {};
    for (int k = 0; k < kExactSumTermsPerLane && lane_first + k < n; ++k) {
      values[k] = segment_terms[lane_first + k];
    }
    const auto within = [&](int i) {
      return std::clamp(i - lane_first, 0, kExactSumTermsPerLane);
    };
    lanes[lane] = FoldExactSumTermRange(values, within(from), within(to), scale);
  }
  return CombineAsBlockTree(std::move(lanes));
}

// A segment's piece on grid e.
ExactSumPiece SegmentPiece(const double* terms, int64_t count, int64_t segment, int e) {
  const int n = ExactSumSegmentLength(count, segment);
  return GroupPiece(terms + segment * kExactSumSegmentTerms, n, 0, n, e);
}

// A serial segment's crossing (ExactSumCrossing) from approximate partial sums: the block's
// approximate sum before the segment plus the terms in order (the device scans lane sums
// instead; any approximation serves, the pieces' checks make the result exact).
ExactSumCrossing CrossingOf(const double* terms, int64_t count, int64_t segment, double start,
                            double margin) {
  const double* own = terms + segment * kExactSumSegmentTerms;
  const int n = ExactSumSegmentLength(count, segment);
  std::vector<int32_t> grids(n);
  double partial = start;
  for (int k = 0; k < n; ++k) {
    partial += own[k];
    grids[k] = CertainBinade(partial, margin);
  }
  int first_other = n;
  int last_other = 0;
  for (int k = 0; k < n; ++k) {
    if (grids[k] != grids[0]) first_other = std::min(first_other, k);
    if (grids[k] != grids[n - 1]) last_other = k + 1;
  }
  ExactSumCrossing c;
  PlaceCrossing(CertainBinade(start, margin), grids[0], grids[n - 1], first_other, last_other, n,
                &c);
  c.head = c.head_end > 0 ? GroupPiece(own, n, 0, c.head_end, c.head_grid) : EmptyExactSumPiece();
  c.tail = c.tail_begin < n ? GroupPiece(own, n, c.tail_begin, n, c.tail_grid)
                            : EmptyExactSumPiece();
  return c;
}

// Whether block b, looking back, finds predecessor j's approximate running sum published yet:
// always for schedule 0; otherwise, for the 64 blocks before it, as a hash of (schedule, b, j)
// decides, as blocks running side by side on a device would.
bool SeesRunningSum(uint64_t schedule, int64_t b, int64_t j) {
  if (schedule == 0 || b - j > 64) return true;
  uint64_t h = schedule ^ (static_cast<uint64_t>(b) * 0x9E3779B97F4A7C15u) ^
               (static_cast<uint64_t>(j) * 0xC2B2AE3D27D4EB4Fu);
  h ^= h >> 31;
  h *= 0xBF58476D1CE4E5B9u;
  h ^= h >> 29;
  return (h & 1) != 0;
}

// What block b published, as the device's records hold it.
struct BlockRecord {
  double sum = 0.0;  // approximate, and its sum of |t|
  double abs_sum = 0.0;
  double through_sum = 0.0;  // approximate running sum through the block, and of |t|
  double through_abs_sum = 0.0;
  int32_t grid = kExactSumSerialGrid;  // ExactSumBlockGrid
  bool joins = false;                  // JoinsExactSumRun; else the block is ordered
  ExactSumPiece block_piece = EmptyExactSumPiece();
  int32_t known = kExactSumOnDevice;  // an ordered block's exact sum, or why it has none
  double exact = 0.0;
};

// Threads of the kernel's blocks, which fold a run's block pieces in contiguous shares.
constexpr int kBlockThreads = kExactSumBlockThreads;

// The run that ends with block `last` on `grid`, as the kernel's RunPieceThrough finds it: its
// anchor (the nearest block before it that is ordered or on another grid, -1 at the frame's
// start) and its block pieces combined in the kernel's shares and trees.
ExactSumPiece RunPieceThrough(const std::vector<BlockRecord>& records, int64_t last, int32_t grid,
                              int64_t* anchor) {
  int64_t j = last;
  while (j >= 0 && records[j].joins && records[j].grid == grid) --j;
  *anchor = j;
  const int64_t n = last - j;
  const int64_t share = (n + kBlockThreads - 1) / kBlockThreads;
  std::vector<ExactSumPiece> groups;
  for (int g = 0; g < kBlockThreads / kExactSumGroupLanes; ++g) {
    std::vector<ExactSumPiece> lanes(kExactSumGroupLanes, EmptyExactSumPiece());
    for (int lane = 0; lane < kExactSumGroupLanes; ++lane) {
      const int64_t t = g * kExactSumGroupLanes + lane;
      for (int64_t k = std::min(n, t * share); k < std::min(n, (t + 1) * share); ++k) {
        lanes[lane] = CombineExactSumPieces(lanes[lane], records[j + 1 + k].block_piece);
      }
    }
    groups.push_back(CombineAsBlockTree(std::move(lanes)));
  }
  return CombineAsBlockTree(std::move(groups));
}

// The exact sum of an anchor (0.0 for -1), which must be an ordered block. Returns
// kExactSumOnDevice or why the sum is not known.
int32_t AnchorSum(const std::vector<BlockRecord>& records, int64_t anchor, double* sum) {
  *sum = 0.0;
  if (anchor < 0) return kExactSumOnDevice;
  if (records[anchor].joins) return kExactSumCheckFailed;  // never: see JoinsExactSumRun
  *sum = records[anchor].exact;
  return records[anchor].known;
}

}  // namespace

SumWithMagnitude AddBlockPartials(const double* partials, size_t blocks, size_t stride,
                                  size_t offset) {
  SumWithMagnitude total;
  for (size_t b = 0; b < blocks; ++b) {
    total.sum += partials[b * stride + offset];
    total.abs_sum += partials[b * stride + offset + 1];
  }
  return total;
}

double SummationOrderBound(int64_t terms, double abs_sum) {
  if (terms <= 1) return 0.0;
  const double u = 0x1p-53;
  const double nu = static_cast<double>(terms - 1) * u;
  if (nu >= 0.5) return std::numeric_limits<double>::infinity();
  const double gamma = nu / (1.0 - nu);
  // Each operation above and below rounds with a relative error of at most u; a factor of
  // 1 + 2^-20 covers them with a wide margin.
  return 2.0 * gamma * (abs_sum / (1.0 - gamma)) * (1.0 + 0x1p-20);
}

std::optional<double> CertainFloatSsimMean(const SumWithMagnitude& device, int64_t terms,
                                           int valid_width, int valid_height) {
  if (valid_width <= 0 || valid_height <= 0 || !std::isfinite(device.sum) ||
      !std::isfinite(device.abs_sum)) {
    return std::nullopt;
  }
  const double bound = SummationOrderBound(terms, device.abs_sum);
  if (!std::isfinite(bound)) return std::nullopt;
  // Rounded outward, so [low, high] holds every sum within the bound of the device's.
  const double low = std::nextafter(device.sum - bound, -std::numeric_limits<double>::infinity());
  const double high = std::nextafter(device.sum + bound, std::numeric_limits<double>::infinity());
  // The mean is monotone in the sum (a positive divisor, then two roundings), so equal ends mean
  // every sum in between gives that same value.
  const double mean_low = FloatSsimMean(low, valid_width, valid_height);
  const double mean_high = FloatSsimMean(high, valid_width, valid_height);
  if (mean_low != mean_high || std::signbit(mean_low) != std::signbit(mean_high)) {
    return std::nullopt;
  }
  return FloatSsimMean(device.sum, valid_width, valid_height);
}

double SumInOrder(const double* values, size_t count) {
  double sum = 0.0;
  for (size_t i = 0; i < count; ++i) sum += values[i];
  return sum;
}

int64_t IntegerSsimWeightSum(int width, int height) {
  int64_t columns = 0;
  for (int x = 0; x < width; ++x) columns += ClippedWindowWeight(x, width);
  int64_t rows = 0;
  for (int y = 0; y < height; ++y) rows += ClippedWindowWeight(y, height);
  return columns * rows;
}

double IntegerSsimBlockSumBound(int width, int height) {
  const int64_t threads = static_cast<int64_t>(IntegerSsimPartialBlocks(width, height)) *
                          kIntegerSsimBlockX * kIntegerSsimBlockY;
  const double weights = static_cast<double>(IntegerSsimWeightSum(width, height));
  return SummationOrderBound(threads, weights) / weights;
}

ExactSumOutcome SerialSumByBlocks(const double* terms, int64_t count, uint64_t schedule) {
  ExactSumOutcome outcome{0.0, kExactSumOnDevice, 0, 0};
  const int64_t blocks = (count + kExactSumBlockTerms - 1) / kExactSumBlockTerms;
  std::vector<BlockRecord> records(static_cast<size_t>(blocks));
  for (int64_t b = 0; b < blocks; ++b) {
    BlockRecord& own = records[b];
    const double* block_terms = terms + b * kExactSumBlockTerms;
    // Approximate sums (any order serves) and the look-back for the running sum before it.
    double segment_sums[kExactSumSegmentsPerBlock] = {};
    for (int k = 0; k < kExactSumSegmentsPerBlock; ++k) {
      const int n = ExactSumSegmentLength(count, b * kExactSumSegmentsPerBlock + k);
      for (int i = 0; i < n; ++i) {
        segment_sums[k] += block_terms[k * kExactSumSegmentTerms + i];
        own.abs_sum += std::fabs(block_terms[k * kExactSumSegmentTerms + i]);
      }
      own.sum += segment_sums[k];
    }
    double before = 0.0;
    double before_abs = 0.0;
    for (int64_t j = b - 1; j >= 0; --j) {
      if (SeesRunningSum(schedule, b, j)) {
        before += records[j].through_sum;
        before_abs += records[j].through_abs_sum;
        break;
      }
      before += records[j].sum;
      before_abs += records[j].abs_sum;
    }
    own.through_sum = before + own.sum;
    own.through_abs_sum = before_abs + own.abs_sum;
    // Each segment's grid, and its piece or its crossing summary.
    const double margin = ExactSumMargin(count, own.through_abs_sum);
    int32_t grids[kExactSumSegmentsPerBlock];
    ExactSumPiece pieces[kExactSumSegmentsPerBlock];
    ExactSumCrossing crossings[kExactSumSegmentsPerBlock] = {};
    double start = before;
    for (int k = 0; k < kExactSumSegmentsPerBlock; ++k) {
      const int64_t segment = b * kExactSumSegmentsPerBlock + k;
      const double end = start + segment_sums[k];
      grids[k] = ExactSumSegmentLength(count, segment) == 0
                     ? kExactSumNoSegment
                     : GuessSegmentGrid(start, end, margin);
      pieces[k] = EmptyExactSumPiece();
      if (grids[k] == kExactSumSerialGrid) {
        crossings[k] = CrossingOf(terms, count, segment, start, margin);
      } else if (grids[k] != kExactSumNoSegment) {
        pieces[k] = SegmentPiece(terms, count, segment, grids[k]);
      }
      start = end;
    }
    // The block piece and whether the block joins a run; a block that does is done.
    own.grid = ExactSumBlockGrid(grids);
    own.block_piece =
        CombineAsBlockTree(std::vector<ExactSumPiece>(pieces, pieces + kExactSumSegmentsPerBlock));
    const int32_t previous_grid = b > 0 ? records[b - 1].grid : kExactSumSerialGrid;
    own.joins = JoinsExactSumRun(own.grid, own.block_piece, before, margin, previous_grid);
    if (own.joins) continue;
    // An ordered block: planned after the run before it, then its segments in order after the
    // exact sum of that run's anchor.
    int64_t anchor = -1;
    const ExactSumPiece run_piece =
        b > 0 ? RunPieceThrough(records, b - 1, previous_grid, &anchor) : EmptyExactSumPiece();
    ExactSumBlockPlan plan;
    const bool planned = PlanOrderedBlock(run_piece, previous_grid, count, b, grids, pieces,
                                          crossings, &plan);
    double sum = 0.0;
    own.known = AnchorSum(records, anchor, &sum);
    if (own.known == kExactSumOnDevice && outcome.serial_terms >= kExactSumSerialTermBudget) {
      own.known = kExactSumSerialBudget;
    }
    if (own.known == kExactSumOnDevice) {
      int serial = 0;
      if (!AddOrderedBlock(sum, planned ? &plan : nullptr, run_piece, previous_grid, block_terms,
                           count, b, grids, pieces, crossings, &sum, &serial)) {
        own.known = kExactSumCheckFailed;
      }
      outcome.serial_terms += serial;
      ++outcome.ordered_blocks;
      own.exact = sum;
      if (std::isnan(sum)) own.known = kExactSumCheckFailed;  // the device's word cannot hold it
    }
  }
  if (blocks > 0) {
    const BlockRecord& last = records.back();
    if (last.joins) {
      int64_t anchor = -1;
      const ExactSumPiece run_piece = RunPieceThrough(records, blocks - 1, last.grid, &anchor);
      outcome.fallback = AnchorSum(records, anchor, &outcome.sum);
      if (outcome.fallback == kExactSumOnDevice &&
          !ApplyExactSumPiece(outcome.sum, last.grid, run_piece, &outcome.sum)) {
        outcome.fallback = kExactSumCheckFailed;
      }
    } else {
      outcome.fallback = last.known;
      outcome.sum = last.exact;
    }
  }
  return outcome;
}

const char* ExactSumFallbackName(int32_t fallback) {
  switch (fallback) {
    case kExactSumOnDevice:
      return "none";
    case kExactSumSerialBudget:
      return "serial_budget";
    case kExactSumCheckFailed:
      return "check_failed";
    default:
      return "unknown";
  }
}

}  // namespace ssimd
