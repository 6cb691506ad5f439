// libvmaf's integer motion SAD in one pass: each thread reads one column of the difference of
// the two pictures over a band of rows, filters it vertically in registers, and its block filters
// the band's rows horizontally in shared memory and adds the absolute values into one 64-bit word,
// all with the arithmetic of kernels/vmaf_motion_math.h that the CPU runs. Nothing goes through
// global memory but the two pictures and that word, so no workspace.
//
// libvmaf sums a row in 32 bits before adding rows in 64. Within the bit depth each absolute value
// is at most 65535, so a row of up to kMaxDimension samples cannot wrap its 32 bits (the math
// header's ranges): the row sum is exact, and an exact integer sum may be regrouped freely, here
// by block. Samples above the bit depth, which callers reject (ValidateSampleRange), give an
// unspecified sum here as on the CPU.
#include <cstddef>
#include <cstdint>

#include "kernels/hip_portability.h"
#include "kernels/vmaf_motion_kernels.h"
#include "kernels/vmaf_motion_math.h"

namespace ssimd {
namespace {

// A block is a band of columns kThreads wide, one thread per column, of which the middle
// kTileWidth are its outputs (the two at each side only feed their neighbours' horizontal
// filter), and kTileHeight rows tall. A thread loads its column's differences for the band and the
// two rows above and below all at once, filters them vertically in registers, and the block then
// filters the rows horizontally from shared memory.
constexpr int kThreads = 128;
constexpr int kTileWidth = kThreads - 2 * kMotionRadius;
constexpr int kTileHeight = 16;
constexpr int kSpanHeight = kTileHeight + 2 * kMotionRadius;  // difference rows a band reads
constexpr uint32_t kMaxAbsoluteValue = 65535;
// A block's sum in 32 bits: every output of the tile at its largest must fit.
static_assert(uint64_t{kTileWidth} * kTileHeight * kMaxAbsoluteValue < (uint64_t{1} << 32),
              "a tile's SAD must fit 32 bits");
static_assert((kThreads & (kThreads - 1)) == 0, "the tree reduction needs a power of two");

template <typename Accumulator, typename Sample>
__global__ void __launch_bounds__(kThreads)
    MotionSad(const Sample* previous, const Sample* current, int width, int height, int bit_depth,
              unsigned long long* sad_sum) {  // NOLINT(runtime/int)
  // filtered[i][t]: the vertically filtered value at row y0 + i, thread t's column.
  __shared__ int32_t filtered[kTileHeight][kThreads];
  __shared__ uint32_t partial[kThreads];
  const int t = static_cast<int>(threadIdx.x);
  const int x0 = static_cast<int>(blockIdx.x) * kTileWidth;
  const int y0 = static_cast<int>(blockIdx.y) * kTileHeight;
  const int x = x0 - kMotionRadius + t;

  // Columns past the mirrored border (in the last band) and rows past it (in the last row of
  // bands) are not read: they only feed outputs outside the picture, which are not summed.
  int32_t difference[kSpanHeight];
  const bool column_read = x < width + kMotionRadius;
  const size_t column = static_cast<size_t>(MotionMirror(column_read ? x : 0, width));
#pragma unroll
  for (int i = 0; i < kSpanHeight; ++i) {
    const int y = y0 - kMotionRadius + i;
    difference[i] = 0;
    if (column_read && y < height + kMotionRadius) {
      const size_t at = static_cast<size_t>(MotionMirror(y, height)) * static_cast<size_t>(width) +
                        column;
      difference[i] = static_cast<int32_t>(previous[at]) - static_cast<int32_t>(current[at]);
    }
  }
#pragma unroll
  for (int i = 0; i < kTileHeight; ++i) {
    filtered[i][t] = MotionVerticalValue<Accumulator>(
        Accumulator{difference[i]}, Accumulator{difference[i + 1]},
        Accumulator{difference[i + 2]}, Accumulator{difference[i + 3]},
        Accumulator{difference[i + 4]}, bit_depth);
  }
  __syncthreads();

  uint32_t sad = 0;
  if (t >= kMotionRadius && t < kThreads - kMotionRadius && x < width) {
    const int rows = min(kTileHeight, height - y0);
#pragma unroll
    for (int i = 0; i < kTileHeight; ++i) {
      if (i < rows) {
        sad += MotionHorizontalAbs(filtered[i][t - 2], filtered[i][t - 1], filtered[i][t],
                                   filtered[i][t + 1], filtered[i][t + 2]);
      }
    }
  }
  partial[t] = sad;
  __syncthreads();
  for (int half = kThreads / 2; half > 0; half /= 2) {
    if (t < half) partial[t] += partial[t + half];
    __syncthreads();
  }
  // Unchanged content (static scenes, repeated frames) adds nothing: skip the atomic.
  if (t == 0 && partial[0] != 0) {
    atomicAdd(sad_sum, static_cast<unsigned long long>(partial[0]));  // NOLINT(runtime/int)
  }
}

}  // namespace

size_t VmafMotionWorkspaceBytes(int /*width*/, int /*height*/) { return 0; }

hipError_t LaunchVmafMotion(const VmafMotionLaunch& l, hipStream_t stream) {
  if (hipError_t e = hipMemsetAsync(l.sad_sum, 0, sizeof(*l.sad_sum), stream); e != hipSuccess) {
    return e;
  }
  if (l.width < kMotionMinSide || l.height < kMotionMinSide || l.bit_depth < 8 ||
      l.bit_depth > 16 || l.previous == nullptr || l.reference == nullptr) {
    return hipErrorInvalidValue;
  }
  const dim3 grid((l.width + kTileWidth - 1) / kTileWidth,
                  (l.height + kTileHeight - 1) / kTileHeight);
  if (l.bit_depth == 8) {
    hipLaunchKernelGGL((MotionSad<int32_t, uint8_t>), grid, dim3(kThreads), 0, stream,
                       static_cast<const uint8_t*>(l.previous),
                       static_cast<const uint8_t*>(l.reference), l.width, l.height, l.bit_depth,
                       l.sad_sum);
  } else if (MotionVerticalNeeds64Bits(l.bit_depth)) {
    hipLaunchKernelGGL((MotionSad<int64_t, uint16_t>), grid, dim3(kThreads), 0, stream,
                       static_cast<const uint16_t*>(l.previous),
                       static_cast<const uint16_t*>(l.reference), l.width, l.height, l.bit_depth,
                       l.sad_sum);
  } else {
    hipLaunchKernelGGL((MotionSad<int32_t, uint16_t>), grid, dim3(kThreads), 0, stream,
                       static_cast<const uint16_t*>(l.previous),
                       static_cast<const uint16_t*>(l.reference), l.width, l.height, l.bit_depth,
                       l.sad_sum);
  }
  return hipGetLastError();
}

}  // namespace ssimd
