// libvmaf's integer motion SAD in one pass: a block per tile of output samples loads the
// difference of the two pictures over the tile and its two-sample mirrored border into shared
// memory, filters it vertically then horizontally there (the arithmetic of
// kernels/vmaf_motion_math.h, as the CPU runs it), and adds the absolute values into one 64-bit
// word. Nothing goes through global memory but the two pictures and that word.
//
// libvmaf sums a row in 32 bits before adding rows in 64. Within the bit depth each absolute value
// is at most 65535, so a row of up to kMaxDimension samples cannot wrap its 32 bits (the math
// header's ranges): the row sum is exact, and an exact integer sum may be regrouped freely, here
// by tile. Samples above the bit depth, which callers reject (ValidateSampleRange), give an
// unspecified sum here as on the CPU.
#include <cstddef>
#include <cstdint>

#include "kernels/hip_portability.h"
#include "kernels/vmaf_motion_kernels.h"
#include "kernels/vmaf_motion_math.h"

namespace ssimd {
namespace {

constexpr int kThreads = 256;
// Output samples per block. A wide tile keeps the mirrored border a small share of the loads, and
// both shared planes together stay within the 48 KiB every target grants a block statically.
constexpr int kTileWidth = 128;
constexpr int kTileHeight = 32;
constexpr int kSpanWidth = kTileWidth + 2 * kMotionRadius;   // filtered columns a tile reads
constexpr int kSpanHeight = kTileHeight + 2 * kMotionRadius;  // difference rows a tile reads
constexpr uint32_t kMaxAbsoluteValue = 65535;
// A block's sum in 32 bits: every output of the tile at its largest must fit.
static_assert(uint64_t{kTileWidth} * kTileHeight * kMaxAbsoluteValue < (uint64_t{1} << 32),
              "a tile's SAD must fit 32 bits");
static_assert((kThreads & (kThreads - 1)) == 0, "the tree reduction needs a power of two");

template <typename Accumulator, typename Sample>
__global__ void __launch_bounds__(kThreads)
    MotionSad(const Sample* previous, const Sample* current, int width, int height, int bit_depth,
              unsigned long long* sad_sum) {  // NOLINT(runtime/int)
  // difference[i][j]: previous - current at row y0 - 2 + i, column x0 - 2 + j, both mirrored.
  __shared__ int32_t difference[kSpanHeight][kSpanWidth];
  // filtered[i][j]: the vertically filtered value at row y0 + i, the same column as above.
  __shared__ int32_t filtered[kTileHeight][kSpanWidth];
  __shared__ uint32_t partial[kThreads];
  const int x0 = static_cast<int>(blockIdx.x) * kTileWidth;
  const int y0 = static_cast<int>(blockIdx.y) * kTileHeight;
  const int tid = static_cast<int>(threadIdx.x);

  // Beyond the mirrored border (the last tile of a row or column) nothing is read; those slots
  // only feed outputs outside the picture, which are not summed.
  for (int s = tid; s < kSpanHeight * kSpanWidth; s += kThreads) {
    const int i = s / kSpanWidth;
    const int j = s - i * kSpanWidth;
    const int y = y0 - kMotionRadius + i;
    const int x = x0 - kMotionRadius + j;
    int32_t d = 0;
    if (y < height + kMotionRadius && x < width + kMotionRadius) {
      const size_t at = static_cast<size_t>(MotionMirror(y, height)) * static_cast<size_t>(width) +
                        static_cast<size_t>(MotionMirror(x, width));
      d = static_cast<int32_t>(previous[at]) - static_cast<int32_t>(current[at]);
    }
    difference[i][j] = d;
  }
  __syncthreads();

  for (int s = tid; s < kTileHeight * kSpanWidth; s += kThreads) {
    const int i = s / kSpanWidth;
    const int j = s - i * kSpanWidth;
    filtered[i][j] = MotionVerticalValue<Accumulator>(
        Accumulator{difference[i][j]}, Accumulator{difference[i + 1][j]},
        Accumulator{difference[i + 2][j]}, Accumulator{difference[i + 3][j]},
        Accumulator{difference[i + 4][j]}, bit_depth);
  }
  __syncthreads();

  const int rows = min(kTileHeight, height - y0);
  const int columns = min(kTileWidth, width - x0);
  uint32_t sad = 0;
  for (int s = tid; s < kTileHeight * kTileWidth; s += kThreads) {
    const int i = s / kTileWidth;
    const int x = s % kTileWidth;
    if (i < rows && x < columns) {
      const int32_t* row = filtered[i];
      sad += MotionHorizontalAbs(row[x], row[x + 1], row[x + 2], row[x + 3], row[x + 4]);
    }
  }
  partial[tid] = sad;
  __syncthreads();
  for (int half = kThreads / 2; half > 0; half /= 2) {
    if (tid < half) partial[tid] += partial[tid + half];
    __syncthreads();
  }
  // Unchanged content (static scenes, repeated frames) adds nothing: skip the atomic.
  if (tid == 0 && partial[0] != 0) {
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
