// SerialSumByBlocks (the device's exact serial sum, compiled for the host) against the plain serial
// loop, bit for bit, on sequences built to hit every case of the method: both signs, binade
// crossings up and down, exact ties on even and odd partial sums, sums through zero, subnormal
// terms, non-finite terms, and sizes from 1 term up; each under several schedules (which
// predecessors' records a block's look-backs find published).
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "base/double_bits.h"
#include "engine/gpu/exact_sum.h"
#include "engine/gpu/ssim_like_terms.h"
#include "gtest/gtest.h"
#include "kernels/exact_sum_math.h"

namespace ssimd {
namespace {

double PlainSerialSum(const std::vector<double>& terms) {
  double sum = 0.0;
  for (double t : terms) sum += t;
  return sum;
}

// What the GPU backend reports: the method's sum, or the host's serial sum where it fell back.
struct Checked {
  ExactSumOutcome outcome;
  double sum;
};

void ExpectSerialSum(double sum, double expected, const std::vector<double>& terms,
                     const ExactSumOutcome& outcome, uint64_t schedule) {
  if (std::isnan(expected)) {
    EXPECT_TRUE(std::isnan(sum));
  } else {
    EXPECT_EQ(DoubleBits(sum), DoubleBits(expected))
        << "n=" << terms.size() << " schedule " << schedule << " got " << sum << " want "
        << expected << " fallback=" << ExactSumFallbackName(outcome.fallback);
  }
}

// Checks the method under schedule 0 (every record published) and two others; returns the first.
Checked SumAndCompare(const std::vector<double>& terms) {
  const double expected = PlainSerialSum(terms);
  Checked first{};
  for (uint64_t schedule : {uint64_t{0}, uint64_t{1}, uint64_t{0x5eed}}) {
    const ExactSumOutcome outcome =
        SerialSumByBlocks(terms.data(), static_cast<int64_t>(terms.size()), schedule);
    const double sum = outcome.fallback == kExactSumOnDevice ? outcome.sum : expected;
    ExpectSerialSum(sum, expected, terms, outcome, schedule);
    if (schedule == 0) first = {outcome, sum};
  }
  return first;
}

TEST(SerialSumByBlocksTest, SsimLikeTermsTakeTheParallelPathAtEverySize) {
  for (size_t n : {size_t{1}, size_t{2}, size_t{255}, size_t{256}, size_t{257}, size_t{4096},
                   size_t{65537}, size_t{1920 * 1080}, size_t{1} << 22}) {
    const Checked c = SumAndCompare(SsimLikeTerms(n, static_cast<uint32_t>(n)));
    EXPECT_EQ(c.outcome.fallback, kExactSumOnDevice) << n;
    // Serial work is the frame's first segment (the sum climbs a binade every few terms there)
    // and a few terms around each later binade crossing, not a share of the picture.
    EXPECT_LE(c.outcome.serial_terms, kExactSumSegmentTerms) << n;
    // The sum changes binade about once per doubling of the terms, so the blocks added in order
    // (one after another on the device) grow with the logarithm of the frame's size.
    const int64_t blocks = (static_cast<int64_t>(n) + kExactSumBlockTerms - 1) / kExactSumBlockTerms;
    EXPECT_LE(c.outcome.ordered_blocks, 3 + std::ceil(std::log2(static_cast<double>(blocks)))) << n;
  }
}

TEST(SerialSumByBlocksTest, RandomTermsOfBothSignsAndScales) {
  std::mt19937_64 rng(7);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::uniform_int_distribution<int> exponent(-30, 30);
  int on_device = 0;
  for (int trial = 0; trial < 40; ++trial) {
    const size_t n = 1 + rng() % 20000;
    const double drift = normal(rng);  // a mean away from zero makes the sum grow through binades
    std::vector<double> terms(n);
    for (double& t : terms) t = std::ldexp(normal(rng) + drift, exponent(rng));
    on_device += SumAndCompare(terms).outcome.fallback == kExactSumOnDevice;
  }
  EXPECT_GT(on_device, 0);
}

TEST(SerialSumByBlocksTest, SumsThatCrossBinadesUpAndDown) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> unit(0.5, 1.5);
  std::vector<double> terms;
  // Up through ~20 binades with growing terms, then back down past where it started.
  for (int i = 0; i < 100000; ++i) terms.push_back(unit(rng) * (1.0 + i / 64));
  const double top = PlainSerialSum(terms);
  for (int i = 0; i < 100000; ++i) terms.push_back(-unit(rng) * (1.0 + (100000 - i) / 64) * 1.01);
  const Checked c = SumAndCompare(terms);
  EXPECT_LT(c.sum, top / 2);
  EXPECT_EQ(c.outcome.fallback, kExactSumOnDevice);
}

// Terms of exactly half a unit of the partial sum's grid: every addition is a tie, resolved by
// the parity of the partial sum, which 2 (one unit) and 1.5 units flip.
TEST(SerialSumByBlocksTest, ExactTiesOnEvenAndOddPartialSums) {
  for (double base : {0x1p53, 1.5, 0x1.8p-900, -0x1p70}) {
    const double unit = std::ldexp(1.0, std::ilogb(base) - 52);
    std::mt19937_64 rng(static_cast<uint64_t>(std::fabs(std::log2(std::fabs(base)))) + 3);
    for (int trial = 0; trial < 4; ++trial) {
      std::vector<double> terms = {base};
      for (int i = 0; i < 50000; ++i) {
        switch (rng() % 4) {
          case 0: terms.push_back(0.5 * unit); break;   // a tie
          case 1: terms.push_back(unit); break;         // flips the parity
          case 2: terms.push_back(1.5 * unit); break;   // a tie that moves by one or two
          default: terms.push_back(-0.5 * unit); break; // a tie downwards
        }
      }
      const Checked c = SumAndCompare(terms);
      if (std::fabs(base) > 0x1p-800) {
        EXPECT_EQ(c.outcome.fallback, kExactSumOnDevice) << base;
      }
    }
  }
}

TEST(SerialSumByBlocksTest, SumsThroughZero) {
  std::mt19937_64 rng(13);
  std::uniform_real_distribution<double> unit(0.0, 2.0);
  std::vector<double> terms;
  // A slow oscillation: the sum swings between about +-3e5, crossing zero many times.
  for (int i = 0; i < 400000; ++i) {
    const double sign = ((i / 50000) % 2 == 0) ? 1.0 : -1.0;
    terms.push_back(sign * unit(rng) * 10.0 + 1e-3 * (unit(rng) - 1.0));
  }
  SumAndCompare(terms);
  // Exact cancellation to zero and a restart from it.
  std::vector<double> back = {1.0, 0x1p-60, -1.0, -0x1p-60, 3.0};
  SumAndCompare(back);
}

TEST(SerialSumByBlocksTest, SubnormalTerms) {
  std::mt19937_64 rng(17);
  std::uniform_int_distribution<int64_t> mantissa(-(int64_t{1} << 52), int64_t{1} << 52);
  std::vector<double> tiny;
  for (int i = 0; i < 5000; ++i) tiny.push_back(std::ldexp(static_cast<double>(mantissa(rng)), -1074));
  SumAndCompare(tiny);
  // Subnormal terms below half a unit of a normal sum vanish, on the parallel path too.
  std::vector<double> mixed = SsimLikeTerms(100000, 5);
  for (size_t i = 0; i < mixed.size(); i += 3) mixed[i] = std::ldexp(1.0, -1050);
  const Checked c = SumAndCompare(mixed);
  EXPECT_EQ(c.outcome.fallback, kExactSumOnDevice);
}

// A segment whose ends share a binade but whose middle leaves it: the check catches it and the
// run is added serially (or the frame falls back), never applied wrongly.
TEST(SerialSumByBlocksTest, ExcursionsInsideASegmentAreCaught) {
  std::vector<double> terms = SsimLikeTerms(300000, 19);
  for (size_t at : {size_t{70000}, size_t{150000}, size_t{250003}}) {
    terms[at] = 0x1p45;
    terms[at + 1] = -0x1p45;
  }
  SumAndCompare(terms);
}

// Excursions inside the segments where the sum changes binade (before and after the crossing
// term): the crossing summaries' checks catch them and the segment is added term by term.
TEST(SerialSumByBlocksTest, ExcursionsAroundBinadeCrossingsAreCaught) {
  std::vector<double> terms = SsimLikeTerms(1 << 20, 41);
  std::vector<size_t> crossings;
  double sum = 0.0;
  for (size_t i = 0; i < terms.size(); ++i) {
    const double next = sum + terms[i];
    if (i >= 4 * kExactSumSegmentTerms && std::ilogb(next) != std::ilogb(sum)) {
      crossings.push_back(i);
    }
    sum = next;
  }
  ASSERT_GE(crossings.size(), 5u);
  for (size_t k = 0; k < crossings.size(); ++k) {
    const size_t segment_first = crossings[k] / kExactSumSegmentTerms * kExactSumSegmentTerms;
    // Alternately in the part summarised on the old binade and in the one on the new.
    const size_t at = k % 2 == 0 ? segment_first + 2 : segment_first + kExactSumSegmentTerms - 4;
    if (at + 1 == crossings[k] || at == crossings[k]) continue;
    terms[at] += 0x1p45;
    terms[at + 1] -= 0x1p45;
  }
  const Checked c = SumAndCompare(terms);
  EXPECT_EQ(c.outcome.fallback, kExactSumOnDevice);
  // The refused crossings were added whole (without excursions: well under one segment).
  EXPECT_GT(c.outcome.serial_terms, 4 * kExactSumSegmentTerms);
}

TEST(SerialSumByBlocksTest, NonFiniteTerms) {
  std::vector<double> terms = SsimLikeTerms(10000, 23);
  terms[5000] = INFINITY;
  SumAndCompare(terms);
  terms[6000] = -INFINITY;
  SumAndCompare(terms);
  terms[6000] = NAN;
  SumAndCompare(terms);
  std::vector<double> overflow(1000, 0x1p1020);
  SumAndCompare(overflow);
}

// The check itself: applying a run's piece on any grid either reproduces the serial sum or is
// refused, whatever grid is guessed and wherever the sum starts.
TEST(ApplyExactSumPieceTest, AnyGuessIsRightOrRefused) {
  std::mt19937_64 rng(29);
  std::normal_distribution<double> normal(0.0, 1.0);
  int applied = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    const double start = std::ldexp(normal(rng), static_cast<int>(rng() % 40) - 20);
    std::vector<double> terms(1 + rng() % 64);
    const int scale = static_cast<int>(rng() % 50) - 45;
    for (double& t : terms) t = std::ldexp(normal(rng), scale);
    if (rng() % 4 == 0) terms[rng() % terms.size()] = std::ldexp(0.5, std::ilogb(start) - 52);
    double serial = start;
    for (double t : terms) serial += t;
    const int true_binade = std::ilogb(serial);
    for (int e = true_binade - 3; e <= true_binade + 3; ++e) {
      ExactSumPiece piece = EmptyExactSumPiece();
      for (double t : terms) {
        piece = CombineExactSumPieces(piece, ExactSumTermPiece(t, ExactSumGridScale(e)));
      }
      double out = 0;
      if (ApplyExactSumPiece(start, e, piece, &out)) {
        ++applied;
        EXPECT_EQ(DoubleBits(out), DoubleBits(serial)) << "start " << start << " e " << e;
      }
    }
  }
  EXPECT_GT(applied, 1000);
}

TEST(CombineExactSumPiecesTest, GroupingDoesNotMatter) {
  std::mt19937_64 rng(31);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<ExactSumPiece> pieces;
    for (int i = 0; i < 9; ++i) {
      const double t = std::ldexp(static_cast<double>(static_cast<int64_t>(rng() % 4001) - 2000), -1);
      pieces.push_back(ExactSumTermPiece(t, 1.0));  // ties on every odd value
    }
    ExactSumPiece left = EmptyExactSumPiece();
    for (const ExactSumPiece& p : pieces) left = CombineExactSumPieces(left, p);
    ExactSumPiece right = EmptyExactSumPiece();
    for (int i = 8; i >= 0; --i) right = CombineExactSumPieces(pieces[i], right);
    for (int parity = 0; parity < 2; ++parity) {
      EXPECT_EQ(left.added[parity], right.added[parity]);
      EXPECT_EQ(left.lowest[parity], right.lowest[parity]);
      EXPECT_EQ(left.highest[parity], right.highest[parity]);
    }
  }
}

// Pieces without ties combine on one half, with the general combination's result: sums, ranges,
// empty and invalid pieces, and values past the piece limit.
TEST(CombineUniformExactSumPiecesTest, EqualsTheGeneralCombination) {
  std::mt19937_64 rng(43);
  std::normal_distribution<double> normal(0.0, 1.0);
  auto uniform_piece = [&]() {
    double values[kExactSumTermsPerLane] = {};
    const int n = static_cast<int>(rng() % (kExactSumTermsPerLane + 1));
    const int magnitude = rng() % 8 == 0 ? 58 : static_cast<int>(rng() % 40);
    for (int k = 0; k < n; ++k) values[k] = std::ldexp(normal(rng), magnitude);
    return rng() % 20 == 0 ? InvalidExactSumPiece() : FoldExactSumTerms(values, n, 1.0);
  };
  int limited = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    const ExactSumPiece first = uniform_piece();
    const ExactSumPiece second = uniform_piece();
    if (!IsUniformExactSumPiece(first) || !IsUniformExactSumPiece(second)) continue;  // a tie
    const ExactSumPiece general = CombineExactSumPieces(first, second);
    const ExactSumPiece half = CombineUniformExactSumPieces(first, second);
    limited += general.state == kPieceInvalid && first.state == kPieceValid &&
                       second.state == kPieceValid
                   ? 1
                   : 0;
    ASSERT_EQ(half.state, general.state) << trial;
    EXPECT_TRUE(IsUniformExactSumPiece(half));
    for (int parity = 0; parity < 2; ++parity) {
      EXPECT_EQ(half.added[parity], general.added[parity]) << trial;
      EXPECT_EQ(half.lowest[parity], general.lowest[parity]) << trial;
      EXPECT_EQ(half.highest[parity], general.highest[parity]) << trial;
    }
  }
  EXPECT_GT(limited, 10);
}

// The lanes' fold: its no-tie walk gives what folding ExactSumTermPiece term by term gives, ties,
// out-of-range terms and partial sums past the piece limit included.
TEST(FoldExactSumTermsTest, EqualsTheGeneralFold) {
  std::mt19937_64 rng(37);
  std::normal_distribution<double> normal(0.0, 1.0);
  int ties = 0;
  int invalid = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    double values[kExactSumTermsPerLane] = {};
    const int n = static_cast<int>(rng() % (kExactSumTermsPerLane + 1));
    const int e = static_cast<int>(rng() % 80) - 40;
    for (int k = 0; k < n; ++k) {
      switch (rng() % 6) {
        case 0:  // an exact tie on the grid of e
          values[k] = std::ldexp(
              static_cast<double>(2 * static_cast<int64_t>(rng() % 2001) - 2001), e - 53);
          break;
        case 1:  // near the piece limit
          values[k] = std::ldexp(normal(rng), e + 7);
          break;
        default:
          values[k] = std::ldexp(normal(rng), e - static_cast<int>(rng() % 60));
      }
    }
    ExactSumPiece general = EmptyExactSumPiece();
    bool has_tie = false;
    for (int k = 0; k < n; ++k) {
      const double scaled = values[k] * ExactSumGridScale(e);
      has_tie |= scaled - std::floor(scaled) == 0.5;
      general = CombineExactSumPieces(general, ExactSumTermPiece(values[k], ExactSumGridScale(e)));
    }
    const ExactSumPiece fold = FoldExactSumTerms(values, n, ExactSumGridScale(e));
    ties += has_tie ? 1 : 0;
    invalid += general.state == kPieceInvalid ? 1 : 0;
    ASSERT_EQ(fold.state, general.state) << trial;
    if (general.state != kPieceValid) continue;
    for (int parity = 0; parity < 2; ++parity) {
      EXPECT_EQ(fold.added[parity], general.added[parity]) << trial;
      EXPECT_EQ(fold.lowest[parity], general.lowest[parity]) << trial;
      EXPECT_EQ(fold.highest[parity], general.highest[parity]) << trial;
    }
  }
  EXPECT_GT(ties, 1000);
  EXPECT_GT(invalid, 100);
}

// The lanes' fold over a part of their terms: the general fold of that part.
TEST(FoldExactSumTermsTest, RangesEqualTheGeneralFold) {
  std::mt19937_64 rng(47);
  std::normal_distribution<double> normal(0.0, 1.0);
  for (int trial = 0; trial < 20000; ++trial) {
    double values[kExactSumTermsPerLane] = {};
    const int e = static_cast<int>(rng() % 60) - 30;
    for (double& v : values) {
      v = rng() % 5 == 0 ? std::ldexp(static_cast<double>(2 * static_cast<int64_t>(rng() % 99) + 1),
                                      e - 53)  // a tie
                         : std::ldexp(normal(rng), e - static_cast<int>(rng() % 50));
    }
    const int from = static_cast<int>(rng() % (kExactSumTermsPerLane + 1));
    const int to = static_cast<int>(rng() % (kExactSumTermsPerLane + 1));
    ExactSumPiece general = EmptyExactSumPiece();
    for (int k = from; k < to; ++k) {
      general = CombineExactSumPieces(general, ExactSumTermPiece(values[k], ExactSumGridScale(e)));
    }
    const ExactSumPiece fold = FoldExactSumTermRange(values, from, to, ExactSumGridScale(e));
    ASSERT_EQ(fold.state, general.state) << trial;
    for (int parity = 0; parity < 2; ++parity) {
      EXPECT_EQ(fold.added[parity], general.added[parity]) << trial;
      EXPECT_EQ(fold.lowest[parity], general.lowest[parity]) << trial;
      EXPECT_EQ(fold.highest[parity], general.highest[parity]) << trial;
    }
  }
}

// Where a crossing's head ends and its tail begins: the tail starts after the term that enters
// its grid, unless the sum before the segment is on that grid already; the head needs the sum
// before the segment on its grid.
TEST(PlaceCrossingTest, HeadAndTailAroundTheChange) {
  ExactSumCrossing c;
  PlaceCrossing(/*start_grid=*/20, /*first_grid=*/20, /*last_grid=*/21, /*first_other=*/100,
                /*last_other=*/101, /*n=*/256, &c);
  EXPECT_EQ(c.head_end, 100);
  EXPECT_EQ(c.tail_begin, 102);
  PlaceCrossing(kExactSumSerialGrid, 3, 9, 1, 140, 256, &c);  // the frame's start
  EXPECT_EQ(c.head_end, 0);
  EXPECT_EQ(c.tail_begin, 141);
  PlaceCrossing(20, 20, 20, 256, 0, 256, &c);  // no change: all head
  EXPECT_EQ(c.head_end, 256);
  EXPECT_EQ(c.tail_begin, 256);
  PlaceCrossing(19, 20, 20, 256, 0, 256, &c);  // the change before the first term: all tail
  EXPECT_EQ(c.head_end, 0);
  EXPECT_EQ(c.tail_begin, 1);
  PlaceCrossing(20, 20, kExactSumSerialGrid, 30, 256, 256, &c);  // towards zero: no tail
  EXPECT_EQ(c.head_end, 30);
  EXPECT_EQ(c.tail_begin, 256);
}

// A crossing summary is used only when its ranges and pieces agree; an all-zero one (never
// written) is not.
TEST(UsableCrossingTest, RangesAndPiecesMustAgree) {
  ExactSumCrossing c{};
  EXPECT_FALSE(UsableCrossing(&c, 256));
  EXPECT_FALSE(UsableCrossing(nullptr, 256));
  double sum = 5.0;
  std::vector<double> terms(256, 1.0);
  EXPECT_EQ(AddSerialSegment(terms.data(), 0, &c, 256, &sum), 256);
  EXPECT_EQ(sum, 261.0);  // every term, one by one
  c.head_end = 10;
  c.tail_begin = 256;
  EXPECT_FALSE(UsableCrossing(&c, 256));  // a head range without a piece
  c.head = InvalidExactSumPiece();
  EXPECT_TRUE(UsableCrossing(&c, 256));   // refused when applied, then added term by term
  sum = 5.0;
  EXPECT_EQ(AddSerialSegment(terms.data(), 0, &c, 256, &sum), 256);
  EXPECT_EQ(sum, 261.0);
}

// A usable crossing adds its head and tail as pieces and only the terms between one by one; one
// whose tail fails its check is added term by term from the segment's start.
TEST(AddSerialSegmentTest, HeadAndTailAsPiecesTheMiddleTermByTerm) {
  std::vector<double> terms(512, 1.0);
  ExactSumCrossing c{};
  c.head_end = 100;
  c.tail_begin = 102;
  c.head_grid = c.tail_grid = 20;
  const double* segment = terms.data() + 256;
  const double scale = ExactSumGridScale(20);
  double head_terms[128] = {};
  for (int k = 0; k < 100; ++k) head_terms[k] = 1.0;
  c.head = FoldExactSumTerms(head_terms, 100, scale);
  double tail_terms[256] = {};
  for (int k = 0; k < 154; ++k) tail_terms[k] = 1.0;
  c.tail = FoldExactSumTerms(tail_terms, 154, scale);
  double sum = 0x1p20;
  EXPECT_EQ(AddSerialSegment(terms.data(), 256, &c, 256, &sum), 2);
  EXPECT_EQ(sum, 0x1p20 + 256.0);
  c.tail = InvalidExactSumPiece();
  sum = 0x1p20;
  EXPECT_EQ(AddSerialSegment(segment, 0, &c, 256, &sum), 256);
  EXPECT_EQ(sum, 0x1p20 + 256.0);
}

// Powers of two from exponent fields: the same as ldexp over the whole normal range.
TEST(ExactSumGridTest, PowersOfTwoFromExponentFields) {
  for (int k = -1022; k <= 1023; ++k) {
    EXPECT_EQ(DoubleBits(ExactSumPowerOfTwo(k)), DoubleBits(std::ldexp(1.0, k))) << k;
  }
}

// CertainBinade from exponent fields against its definition with frexp.
TEST(ExactSumGridTest, CertainBinadeIsTheSharedBinadeOfTheInterval) {
  std::mt19937_64 rng(53);
  std::normal_distribution<double> normal(0.0, 1.0);
  int certain = 0;
  for (int trial = 0; trial < 200000; ++trial) {
    const int scale = static_cast<int>(rng() % 2100) - 1070;
    const double approx = std::ldexp(normal(rng), scale);
    const double margin = std::fabs(std::ldexp(normal(rng), scale - static_cast<int>(rng() % 12)));
    const double low = std::fabs(approx) - margin;
    const double high = std::fabs(approx) + margin;
    int32_t expected = kExactSumSerialGrid;
    if (low > 0 && high < 0x1p1000) {
      int low_exponent = 0;
      int high_exponent = 0;
      std::frexp(low, &low_exponent);
      std::frexp(high, &high_exponent);
      if (low_exponent == high_exponent && low_exponent - 1 >= kExactSumMinExponent &&
          low_exponent - 1 <= kExactSumMaxExponent) {
        expected = low_exponent - 1;
      }
    }
    certain += expected != kExactSumSerialGrid ? 1 : 0;
    EXPECT_EQ(CertainBinade(approx, margin), expected) << approx << " " << margin;
  }
  EXPECT_GT(certain, 10000);
}

// Term-by-term addition from -0.0 and with -0.0 terms, from any first term: the plain loop's sum
// bit for bit.
TEST(AddSeriallyTest, EqualsThePlainLoopAtEveryLength) {
  std::mt19937_64 rng(61);
  std::normal_distribution<double> normal(0.0, 1.0);
  for (int n = 0; n <= 2 * kExactSumSegmentTerms; n += 7) {
    std::vector<double> terms(n + 3);
    for (double& t : terms) t = rng() % 7 == 0 ? -0.0 : std::ldexp(normal(rng), -20);
    for (double start : {-0.0, 0.0, 1.0, -0x1p-30}) {
      double expected = start;
      for (int i = 3; i < n + 3; ++i) expected += terms[i];
      double sum = start;
      AddSerially(terms.data(), 3, n, &sum);
      EXPECT_EQ(DoubleBits(sum), DoubleBits(expected)) << "n=" << n << " start " << start;
    }
  }
  std::vector<double> zeros(40, -0.0);
  double sum = -0.0;
  AddSerially(zeros.data(), 0, 40, &sum);
  EXPECT_TRUE(std::signbit(sum));
}

// A block's grid is the one its present segments share; segments past the frame do not count.
TEST(ExactSumBlockGridTest, TheGridEveryPresentSegmentShares) {
  int32_t grids[kExactSumSegmentsPerBlock];
  for (int32_t& g : grids) g = 20;
  EXPECT_EQ(ExactSumBlockGrid(grids), 20);
  grids[5] = 21;
  EXPECT_EQ(ExactSumBlockGrid(grids), kExactSumSerialGrid);
  for (int k = 5; k < kExactSumSegmentsPerBlock; ++k) grids[k] = kExactSumNoSegment;
  EXPECT_EQ(ExactSumBlockGrid(grids), 20);
  grids[0] = kExactSumSerialGrid;
  EXPECT_EQ(ExactSumBlockGrid(grids), kExactSumSerialGrid);
}

// A block joins a run only when its piece surely fits its binade from its approximate start and
// the block before it is on its grid or has none.
TEST(JoinsExactSumRunTest, SurelyInsideAndOnThePreviousGrid) {
  double terms[kExactSumSegmentTerms];
  for (double& t : terms) t = 1000.0;
  const ExactSumPiece piece = FoldExactSumTerms(terms, kExactSumSegmentTerms, ExactSumGridScale(20));
  const double margin = 1.0;
  EXPECT_TRUE(JoinsExactSumRun(20, piece, 0x1.1p20, margin, 20));
  EXPECT_TRUE(JoinsExactSumRun(20, piece, 0x1.1p20, margin, kExactSumSerialGrid));
  EXPECT_FALSE(JoinsExactSumRun(20, piece, 0x1.1p20, margin, 19));  // a grid change at its edge
  EXPECT_FALSE(JoinsExactSumRun(kExactSumSerialGrid, piece, 0x1.1p20, margin, 20));
  // 256 * 1000 more would leave the binade from just below its top.
  EXPECT_FALSE(JoinsExactSumRun(20, piece, 0x1.fp20, margin, 20));
  // Inside with an exact start, but not with every start the margin allows.
  EXPECT_TRUE(SurelyInsideBinade(0x1p20 + 10.0, 1.0, 20, piece));
  EXPECT_FALSE(SurelyInsideBinade(0x1p20 + 10.0, 2000.0, 20, piece));
  EXPECT_FALSE(SurelyInsideBinade(0x1.1p20, margin, 20, InvalidExactSumPiece()));
  // Negative sums: the binade below -2^20.
  double negative[kExactSumSegmentTerms];
  for (double& t : negative) t = -1000.0;
  const ExactSumPiece down =
      FoldExactSumTerms(negative, kExactSumSegmentTerms, ExactSumGridScale(20));
  EXPECT_TRUE(SurelyInsideBinade(-0x1.1p20, margin, 20, down));
  EXPECT_FALSE(SurelyInsideBinade(-0x1.fp20, margin, 20, down));
}

// A block added segment by segment equals the plain loop whatever its grids and pieces say:
// right pieces are applied, wrong ones refused and their terms added one by one.
TEST(AddBlockInOrderTest, EqualsThePlainLoopWithRightAndWrongPieces) {
  std::mt19937_64 rng(71);
  std::uniform_real_distribution<double> unit(0.5, 1.5);
  for (int trial = 0; trial < 40; ++trial) {
    const int64_t count = kExactSumBlockTerms * 3 - static_cast<int64_t>(rng() % 3000);
    std::vector<double> terms(count);
    for (double& t : terms) t = unit(rng) * 300.0;
    const int64_t block = (count - 1) / kExactSumBlockTerms;  // the last, maybe partial, block
    const double* block_terms = terms.data() + block * kExactSumBlockTerms;
    double start = 0x1p21 + static_cast<double>(rng() % 1000);
    double expected = start;
    for (int64_t i = block * kExactSumBlockTerms; i < count; ++i) expected += terms[i];
    int32_t grids[kExactSumSegmentsPerBlock];
    ExactSumPiece pieces[kExactSumSegmentsPerBlock];
    ExactSumCrossing crossings[kExactSumSegmentsPerBlock] = {};
    for (int k = 0; k < kExactSumSegmentsPerBlock; ++k) {
      const int n = ExactSumSegmentLength(count, block * kExactSumSegmentsPerBlock + k);
      const int choice = static_cast<int>(rng() % 3);
      grids[k] = n == 0 ? kExactSumNoSegment
                 : choice == 0 ? kExactSumSerialGrid
                               : 21 + static_cast<int>(rng() % 3);  // right or wrong
      pieces[k] = EmptyExactSumPiece();
      if (grids[k] != kExactSumSerialGrid && n > 0) {
        double values[kExactSumSegmentTerms] = {};
        for (int i = 0; i < n; ++i) values[i] = block_terms[k * kExactSumSegmentTerms + i];
        pieces[k] = FoldExactSumTerms(values, n, ExactSumGridScale(grids[k]));
      }
    }
    double sum = start;
    const int serial =
        AddBlockInOrder(block_terms, count, block, grids, pieces, crossings, &sum);
    EXPECT_EQ(DoubleBits(sum), DoubleBits(expected)) << trial;
    EXPECT_LE(serial, count - block * kExactSumBlockTerms);
  }
}

// An ordered block with one crossing is planned as a lead piece (its segments before the crossing
// and the crossing's head), the two terms around the change of binade, and a trail piece (the
// tail and the segments after it): applied, it gives the plain loop's sum. A block with two
// serial segments does not fit the plan.
TEST(PlanOrderedBlockTest, LeadTheTermsAroundTheCrossingAndTrail) {
  const int64_t count = kExactSumBlockTerms;
  std::vector<double> terms(count, 1.0);
  const double start = 0x1p21 - 300.0;  // the sum reaches 2^21 with term 299, in segment 1
  double expected = start;
  for (double t : terms) expected += t;
  int32_t grids[kExactSumSegmentsPerBlock];
  ExactSumPiece pieces[kExactSumSegmentsPerBlock];
  ExactSumCrossing crossings[kExactSumSegmentsPerBlock] = {};
  double ones[kExactSumSegmentTerms];
  for (double& t : ones) t = 1.0;
  for (int k = 0; k < kExactSumSegmentsPerBlock; ++k) {
    grids[k] = k == 0 ? 20 : 21;
    pieces[k] = FoldExactSumTerms(ones, kExactSumSegmentTerms, ExactSumGridScale(grids[k]));
  }
  grids[1] = kExactSumSerialGrid;
  pieces[1] = EmptyExactSumPiece();
  ExactSumCrossing& c = crossings[1];
  PlaceCrossing(20, 20, 21, /*first_other=*/43, /*last_other=*/44, kExactSumSegmentTerms, &c);
  c.head = FoldExactSumTermRange(ones, 0, c.head_end, ExactSumGridScale(20));
  c.tail = FoldExactSumTermRange(ones, c.tail_begin, kExactSumSegmentTerms, ExactSumGridScale(21));
  ExactSumBlockPlan plan;
  ASSERT_TRUE(PlanOrderedBlock(EmptyExactSumPiece(), 20, count, 0, grids, pieces, crossings,
                               &plan));
  EXPECT_EQ(plan.lead_grid, 20);
  EXPECT_EQ(plan.trail_grid, 21);
  EXPECT_EQ(plan.serial_end - plan.serial_begin, 2);
  double sum = 0.0;
  ASSERT_TRUE(ApplyOrderedBlockPlan(start, plan, terms.data(), &sum));
  EXPECT_EQ(DoubleBits(sum), DoubleBits(expected));
  // A start the lead does not fit is refused, leaving the sum alone.
  sum = 5.0;
  EXPECT_FALSE(ApplyOrderedBlockPlan(0x1p21 - 100.0, plan, terms.data(), &sum));
  EXPECT_EQ(sum, 5.0);
  grids[5] = kExactSumSerialGrid;
  EXPECT_FALSE(PlanOrderedBlock(EmptyExactSumPiece(), 20, count, 0, grids, pieces, crossings,
                                &plan));
}

// However the look-backs find their predecessors' records, the sum is the serial one, and a
// frame that takes the parallel path under one schedule takes it under every one.
TEST(SerialSumByBlocksTest, ScheduleDoesNotChangeTheSum) {
  for (size_t n : {size_t{5000}, size_t{300000}}) {
    const std::vector<double> terms = SsimLikeTerms(n, 97);
    const double expected = PlainSerialSum(terms);
    for (uint64_t schedule = 0; schedule < 24; ++schedule) {
      const ExactSumOutcome outcome =
          SerialSumByBlocks(terms.data(), static_cast<int64_t>(n), schedule);
      ASSERT_EQ(outcome.fallback, kExactSumOnDevice) << n << " " << schedule;
      ExpectSerialSum(outcome.sum, expected, terms, outcome, schedule);
    }
  }
}

// A running sum that keeps changing binade would make the device add most terms one by one,
// block after block: past the budget the frame goes to the host.
TEST(SerialSumByBlocksTest, SerialWorkPastTheBudgetFallsBack) {
  std::vector<double> terms;
  for (int i = 0; i < 200000; ++i) terms.push_back(i % 2 == 0 ? 1.0 : -1.0);
  const Checked c = SumAndCompare(terms);
  EXPECT_EQ(c.outcome.fallback, kExactSumSerialBudget);
  EXPECT_LE(c.outcome.serial_terms, kExactSumSerialTermBudget + kExactSumBlockTerms);
}

}  // namespace
}  // namespace ssimd
