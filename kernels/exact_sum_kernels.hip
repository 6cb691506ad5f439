// The exact serial sum on the device: every step is a function of kernels/exact_sum_math.h, the
// lines the host model (engine/gpu/exact_sum.cc) and its tests run; only the parallel orchestration
// lives here.
#include <cstddef>
#include <cstdint>

#include "kernels/block_sums.h"
#include "kernels/exact_sum_kernels.h"
#include "kernels/exact_sum_math.h"
#include "kernels/hip_portability.h"

namespace ssimd {
namespace {

constexpr int kPlanThreads = 1024;
constexpr size_t kAlign = 256;

size_t AlignUp(size_t bytes) { return (bytes + kAlign - 1) / kAlign * kAlign; }

int32_t SegmentCount(int64_t count) {
  return static_cast<int32_t>((count + kExactSumSegmentTerms - 1) / kExactSumSegmentTerms);
}

// Where each array lives in the workspace.
struct Layout {
  ExactSumOutcome* outcome;
  double* segment_sums;  // per segment: sum, sum of |t|
  int32_t* grids;
  ExactSumPiece* segment_pieces;
  ExactSumRun* runs;
  int32_t* run_count;
  ExactSumPiece* run_pieces;
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
  l.grids = reinterpret_cast<int32_t*>(take(segments * sizeof(int32_t)));
  l.segment_pieces = reinterpret_cast<ExactSumPiece*>(take(segments * sizeof(ExactSumPiece)));
  l.runs = reinterpret_cast<ExactSumRun*>(take(kExactSumMaxRuns * sizeof(ExactSumRun)));
  l.run_count = reinterpret_cast<int32_t*>(take(sizeof(int32_t)));
  l.run_pieces = reinterpret_cast<ExactSumPiece*>(take(kExactSumMaxRuns * sizeof(ExactSumPiece)));
  l.bytes = offset;
  return l;
}

// One block per segment: its approximate sum and sum of |t| (any order serves: they only guide
// the guess of the grid).
__global__ void __launch_bounds__(kExactSumSegmentTerms)
    SegmentSums(const double* terms, int64_t count, double* segment_sums) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * kExactSumSegmentTerms + threadIdx.x;
  double value[1] = {i < count ? terms[i] : 0.0};
  WriteBlockSums<kExactSumSegmentTerms, 1>(value, segment_sums + 2 * blockIdx.x);
}

// Inclusive scan of one value per thread across the block (Hillis-Steele).
template <typename T>
__device__ T InclusiveScan(T value, T* scratch) {
  const int tid = threadIdx.x;
  scratch[tid] = value;
  __syncthreads();
  for (int offset = 1; offset < kPlanThreads; offset *= 2) {
    const T add = tid >= offset ? scratch[tid - offset] : T(0);
    __syncthreads();
    scratch[tid] += add;
    __syncthreads();
  }
  const T result = scratch[tid];
  __syncthreads();
  return result;
}

// One block: the approximate running sum before each segment, each segment's guessed grid, and
// the runs (maximal stretches of one grid). Each thread takes a contiguous share of segments.
__global__ void __launch_bounds__(kPlanThreads)
    PlanRuns(int64_t count, int32_t segments, const double* segment_sums, int32_t* grids,
             ExactSumRun* runs, int32_t* run_count) {
  __shared__ double scratch[kPlanThreads];
  __shared__ int32_t int_scratch[kPlanThreads];
  const int tid = threadIdx.x;
  const int32_t share = (segments + kPlanThreads - 1) / kPlanThreads;
  const int32_t begin = min(segments, tid * share);
  const int32_t end = min(segments, begin + share);
  double sum = 0.0;
  double abs_sum = 0.0;
  for (int32_t j = begin; j < end; ++j) {
    sum += segment_sums[2 * j];
    abs_sum += segment_sums[2 * j + 1];
  }
  const double sum_through = InclusiveScan(sum, scratch);
  const double abs_through = InclusiveScan(abs_sum, scratch);
  if (tid == kPlanThreads - 1) scratch[0] = abs_through;
  __syncthreads();
  const double margin = ExactSumMargin(count, scratch[0]);
  double running = sum_through - sum;
  for (int32_t j = begin; j < end; ++j) {
    const double start = running;
    running += segment_sums[2 * j];
    grids[j] = GuessSegmentGrid(start, running, margin);
  }
  __syncthreads();  // every grid is written (and visible to the block) before runs are found
  int32_t starts = 0;
  for (int32_t j = begin; j < end; ++j) starts += (j == 0 || grids[j] != grids[j - 1]) ? 1 : 0;
  const int32_t starts_through = InclusiveScan(starts, int_scratch);
  int32_t r = starts_through - starts;
  for (int32_t j = begin; j < end; ++j) {
    if (j == 0 || grids[j] != grids[j - 1]) {
      if (r < kExactSumMaxRuns) runs[r] = ExactSumRun{j, grids[j]};
      ++r;
    }
  }
  if (tid == kPlanThreads - 1) *run_count = starts_through;
}

// Combines one piece per thread in order with doubling strides; thread 0 returns the result.
__device__ ExactSumPiece CombineBlock(ExactSumPiece piece, ExactSumPiece* scratch, int threads) {
  const int tid = threadIdx.x;
  scratch[tid] = piece;
  __syncthreads();
  for (int stride = 1; stride < threads; stride *= 2) {
    if (tid % (2 * stride) == 0 && tid + stride < threads) {
      scratch[tid] = CombineExactSumPieces(scratch[tid], scratch[tid + stride]);
    }
    __syncthreads();
  }
  return scratch[0];
}

// One block per segment with a grid: its piece, one term per thread.
__global__ void __launch_bounds__(kExactSumSegmentTerms)
    SegmentPieces(const double* terms, int64_t count, const int32_t* grids,
                  ExactSumPiece* segment_pieces) {
  __shared__ ExactSumPiece scratch[kExactSumSegmentTerms];
  const int32_t grid = grids[blockIdx.x];
  if (grid == kExactSumSerialGrid) return;  // the whole block leaves: no barrier is skipped
  const int64_t i = static_cast<int64_t>(blockIdx.x) * kExactSumSegmentTerms + threadIdx.x;
  const ExactSumPiece piece =
      i < count ? ExactSumTermPiece(terms[i], ExactSumGridScale(grid)) : EmptyExactSumPiece();
  const ExactSumPiece total = CombineBlock(piece, scratch, kExactSumSegmentTerms);
  if (threadIdx.x == 0) segment_pieces[blockIdx.x] = total;
}

// One block per run with a grid: its piece from its segments' pieces, each thread folding a
// contiguous share in order.
__global__ void __launch_bounds__(kExactSumRunThreads)
    RunPieces(int32_t segments, const ExactSumPiece* segment_pieces, const ExactSumRun* runs,
              const int32_t* run_count, ExactSumPiece* run_pieces) {
  __shared__ ExactSumPiece scratch[kExactSumRunThreads];
  const int32_t r = blockIdx.x;
  const int32_t count = *run_count;
  if (count > kExactSumMaxRuns || r >= count || runs[r].grid == kExactSumSerialGrid) return;
  const int32_t first = runs[r].first_segment;
  const int32_t end = r + 1 < count ? runs[r + 1].first_segment : segments;
  const int32_t share = (end - first + kExactSumRunThreads - 1) / kExactSumRunThreads;
  const int32_t from = first + threadIdx.x * share;
  const int32_t to = min(end, from + share);
  ExactSumPiece piece = EmptyExactSumPiece();
  for (int32_t j = from; j < to; ++j) piece = CombineExactSumPieces(piece, segment_pieces[j]);
  const ExactSumPiece total = CombineBlock(piece, scratch, kExactSumRunThreads);
  if (threadIdx.x == 0) run_pieces[r] = total;
}

// One thread: the checked chain over runs.
__global__ void Chain(const double* terms, int64_t count, int32_t segments,
                      const ExactSumRun* runs, const int32_t* run_count,
                      const ExactSumPiece* run_pieces, const ExactSumPiece* segment_pieces,
                      ExactSumOutcome* outcome) {
  *outcome = ChainExactSumRuns(terms, count, runs, *run_count, segments, run_pieces,
                               segment_pieces);
}

}  // namespace

size_t ExactSumWorkspaceBytes(int64_t count) { return LayoutFor(nullptr, count).bytes; }

hipError_t LaunchExactSerialSum(const double* terms, int64_t count, void* workspace,
                                hipStream_t stream) {
  const int32_t segments = SegmentCount(count);
  const Layout l = LayoutFor(workspace, count);
  hipLaunchKernelGGL(SegmentSums, dim3(segments), dim3(kExactSumSegmentTerms), 0, stream, terms,
                     count, l.segment_sums);
  hipLaunchKernelGGL(PlanRuns, dim3(1), dim3(kPlanThreads), 0, stream, count, segments,
                     l.segment_sums, l.grids, l.runs, l.run_count);
  hipLaunchKernelGGL(SegmentPieces, dim3(segments), dim3(kExactSumSegmentTerms), 0, stream, terms,
                     count, l.grids, l.segment_pieces);
  hipLaunchKernelGGL(RunPieces, dim3(kExactSumMaxRuns), dim3(kExactSumRunThreads), 0, stream,
                     segments, l.segment_pieces, l.runs, l.run_count, l.run_pieces);
  hipLaunchKernelGGL(Chain, dim3(1), dim3(1), 0, stream, terms, count, segments, l.runs,
                     l.run_count, l.run_pieces, l.segment_pieces, l.outcome);
  return hipGetLastError();
}

}  // namespace ssimd
