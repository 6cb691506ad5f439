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
  const int n = ExactSumSegmentLength(count, static_cast<int32_t>(segment));
  return GroupPiece(terms + segment * kExactSumSegmentTerms, n, 0, n, e);
}

// A serial segment's crossing (ExactSumCrossing) from approximate partial sums: the plan's
// approximate sum before the segment plus the terms in order (the device scans lane sums
// instead; any approximation serves, the pieces' checks make the result exact).
ExactSumCrossing CrossingOf(const double* terms, int64_t count, int64_t segment, double start,
                            double margin) {
  const double* own = terms + segment * kExactSumSegmentTerms;
  const int n = ExactSumSegmentLength(count, static_cast<int32_t>(segment));
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

// A block's piece: its segments' pieces combined by one group's tree, when all of them share one
// grid (only then does a run use it).
ExactSumPiece BlockPiece(const std::vector<ExactSumPiece>& segment_pieces, int32_t block) {
  const auto first = segment_pieces.begin() + block * kExactSumSegmentsPerBlock;
  return CombineAsBlockTree(std::vector<ExactSumPiece>(first, first + kExactSumSegmentsPerBlock));
}

// A run's piece from its elements (RunElementsOf): each of kExactSumRunThreads threads folds a
// contiguous share in order, then the block's tree combines the shares.
ExactSumPiece RunPiece(const std::vector<ExactSumPiece>& segment_pieces,
                       const std::vector<ExactSumPiece>& block_pieces, int32_t first,
                       int32_t end) {
  const ExactSumRunElements elements = RunElementsOf(first, end);
  const int32_t count = RunElementCount(elements);
  const int32_t share = (count + kExactSumRunThreads - 1) / kExactSumRunThreads;
  std::vector<ExactSumPiece> shares(kExactSumRunThreads, EmptyExactSumPiece());
  for (int t = 0; t < kExactSumRunThreads; ++t) {
    for (int32_t k = t * share; k < std::min(count, (t + 1) * share); ++k) {
      shares[t] = CombineExactSumPieces(
          shares[t], RunElementPiece(elements, k, segment_pieces.data(), block_pieces.data()));
    }
  }
  return CombineAsBlockTree(std::move(shares));
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

ExactSumOutcome SerialSumByRuns(const double* terms, int64_t count) {
  const int32_t segments =
      static_cast<int32_t>((count + kExactSumSegmentTerms - 1) / kExactSumSegmentTerms);
  // Approximate segment sums and the approximate running sum before each segment.
  std::vector<double> segment_sums(segments, 0.0);
  double abs_sum = 0.0;
  for (int64_t i = 0; i < count; ++i) {
    segment_sums[i / kExactSumSegmentTerms] += terms[i];
    abs_sum += std::fabs(terms[i]);
  }
  const double margin = ExactSumMargin(count, abs_sum);
  std::vector<int32_t> grids(segments);
  std::vector<double> starts(segments);
  double running = 0.0;
  for (int32_t j = 0; j < segments; ++j) {
    starts[j] = running;
    running += segment_sums[j];
    grids[j] = GuessSegmentGrid(starts[j], running, margin);
  }
  std::vector<ExactSumRun> runs;
  for (int32_t j = 0; j < segments; ++j) {
    if (j == 0 || grids[j] != grids[j - 1]) runs.push_back(ExactSumRun{j, grids[j]});
  }
  const int32_t run_count = static_cast<int32_t>(runs.size());
  std::vector<ExactSumPiece> run_pieces(runs.size(), EmptyExactSumPiece());
  std::vector<ExactSumPiece> segment_pieces(segments, EmptyExactSumPiece());
  std::vector<ExactSumCrossing> crossings(segments);
  std::vector<int32_t> run_merges(runs.size(), 0);
  if (run_count <= kExactSumMaxRuns) {
    for (int32_t j = 0; j < segments; ++j) {
      if (grids[j] != kExactSumSerialGrid) {
        segment_pieces[j] = SegmentPiece(terms, count, j, grids[j]);
      }
    }
    // Block pieces are needed only where all of a block's segments share a grid.
    std::vector<ExactSumPiece> block_pieces(segments / kExactSumSegmentsPerBlock,
                                            InvalidExactSumPiece());
    for (size_t b = 0; b < block_pieces.size(); ++b) {
      const auto first = grids.begin() + static_cast<int64_t>(b) * kExactSumSegmentsPerBlock;
      if (*first != kExactSumSerialGrid &&
          std::all_of(first, first + kExactSumSegmentsPerBlock,
                      [&](int32_t g) { return g == *first; })) {
        block_pieces[b] = BlockPiece(segment_pieces, static_cast<int32_t>(b));
      }
    }
    for (int32_t j = 0; j < segments; ++j) {
      if (grids[j] == kExactSumSerialGrid) {
        crossings[j] = CrossingOf(terms, count, j, starts[j], margin);
      }
    }
    for (int32_t r = 0; r < run_count; ++r) {
      const int32_t first = runs[r].first_segment;
      const int32_t end = r + 1 < run_count ? runs[r + 1].first_segment : segments;
      if (runs[r].grid == kExactSumSerialGrid) continue;
      const ExactSumRunNeighbours neighbours =
          NeighboursOfRun(runs.data(), run_count, r, segments, count, crossings.data());
      run_merges[r] = neighbours.merges;
      run_pieces[r] =
          MergedRunPiece(neighbours, RunPiece(segment_pieces, block_pieces, first, end));
    }
  }
  SegmentTermsInPlace source{terms, crossings.data()};
  return ChainExactSumRuns(source, count, runs.data(), run_count, segments, run_pieces.data(),
                           run_merges.data(), segment_pieces.data());
}

const char* ExactSumFallbackName(int32_t fallback) {
  switch (fallback) {
    case kExactSumOnDevice:
      return "none";
    case kExactSumTooManyRuns:
      return "too_many_runs";
    case kExactSumSerialBudget:
      return "serial_budget";
    default:
      return "unknown";
  }
}

}  // namespace ssimd
