// libvmaf's integer vif on the device: per scale, one kernel for the statistics and one that
// low-passes and decimates the picture into the next scale's 16-bit planes in the workspace.
//
// Both are tiled: a block loads its tile of both pictures with the filter's halo into shared
// memory (edges mirrored by VifReflectOnce), runs the vertical pass once per tile column, then the
// horizontal pass per output sample, with the arithmetic of kernels/vmaf_vif_math.h. A column's
// vertical result depends only on the column's samples, so computing it at a reflected column
// gives what libvmaf's mirrored row buffer holds there. The statistics kernel reduces its tile's
// integer sums in the block and adds them to the frame's with one 64-bit atomic each: exact
// integers, so the order does not matter.
#include <cstddef>
#include <cstdint>

#include "kernels/hip_portability.h"
#include "kernels/lane_group.h"
#include "kernels/vmaf_vif_kernels.h"
#include "kernels/vmaf_vif_math.h"

namespace ssimd {
namespace {

constexpr int kThreads = 256;
constexpr int kGroups = kThreads / kLaneGroupWidth;

// Output samples of a statistics block: wide, so that the horizontal halo costs few extra
// vertical passes (1.25x at scale 0), and 16 rows, which keeps scale 0's tile under 48 KiB.
constexpr int kStatTileWidth = 64;
constexpr int kStatTileHeight = 16;
// Output samples of a decimation block (the input tile is twice as large, plus the halo).
constexpr int kDecimateTileWidth = 32;
constexpr int kDecimateTileHeight = 8;

constexpr size_t kPlaneAlignment = 256;

// VifReflectOnce, then clamped: a tile may reach past what any output sample reads (the last
// tile of a row or column), and those entries only need to be readable.
__device__ inline int TileIndex(int i, int n) {
  const int m = VifReflectOnce(i, n);
  return m < 0 ? 0 : (m >= n ? n - 1 : m);
}

static_assert(sizeof(VifSums) == 4 * sizeof(int64_t), "VifSums is read as four 64-bit words");

// Every thread of the block calls this (it shuffles and synchronises). Adds the block's sums to
// `out`. Two's complement addition is the same on unsigned words, which the atomics take.
__device__ inline void AddBlockSums(const VifSums& sums, VifSums* out) {
  __shared__ unsigned long long partial[kGroups][4];  // NOLINT(runtime/int): atomicAdd's type
  unsigned long long v[4] = {  // NOLINT(runtime/int)
      static_cast<unsigned long long>(sums.num_log),  // NOLINT(runtime/int)
      static_cast<unsigned long long>(sums.den_log),  // NOLINT(runtime/int)
      static_cast<unsigned long long>(sums.num_non_log),  // NOLINT(runtime/int)
      static_cast<unsigned long long>(sums.den_non_log)};  // NOLINT(runtime/int)
  for (int q = 0; q < 4; ++q) {
    for (int delta = kLaneGroupWidth / 2; delta > 0; delta /= 2) {
      v[q] += ShuffleDownInGroup(v[q], delta);
    }
  }
  if (LaneInGroup() == 0) {
    for (int q = 0; q < 4; ++q) partial[GroupInBlock()][q] = v[q];
  }
  __syncthreads();
  if (threadIdx.x < 4) {
    const int q = static_cast<int>(threadIdx.x);
    unsigned long long total = 0;  // NOLINT(runtime/int)
    for (int g = 0; g < kGroups; ++g) total += partial[g][q];
    // The fields in declaration order, as v[] holds them.
    unsigned long long* field = reinterpret_cast<unsigned long long*>(out) + q;  // NOLINT
    if (total != 0) atomicAdd(field, total);
  }
}

// One scale's statistics over a kStatTileWidth x kStatTileHeight tile of a width x height
// picture (packed rows), added to `sums`.
template <int kScale, typename Sample>
__global__ void __launch_bounds__(kThreads)
    VifScaleStatistics(const Sample* reference, const Sample* distorted, int width, int height,
                       int bit_depth, const uint16_t* log2_table, double enhn_gain_limit,
                       VifSums* sums) {
  constexpr int kRadius = VifFilterRadius(kScale);
  constexpr int kColumns = kStatTileWidth + 2 * kRadius;
  constexpr int kRows = kStatTileHeight + 2 * kRadius;
  __shared__ uint16_t ref[kRows * kColumns];
  __shared__ uint16_t dis[kRows * kColumns];
  __shared__ uint32_t mu1[kStatTileHeight * kColumns];
  __shared__ uint32_t mu2[kStatTileHeight * kColumns];
  __shared__ uint32_t ref_sq[kStatTileHeight * kColumns];
  __shared__ uint32_t dis_sq[kStatTileHeight * kColumns];
  __shared__ uint32_t ref_dis[kStatTileHeight * kColumns];

  const int x0 = static_cast<int>(blockIdx.x) * kStatTileWidth;
  const int y0 = static_cast<int>(blockIdx.y) * kStatTileHeight;
  for (int i = threadIdx.x; i < kRows * kColumns; i += kThreads) {
    const int ty = i / kColumns;
    const int tx = i - ty * kColumns;
    const size_t at =
        static_cast<size_t>(TileIndex(y0 + ty - kRadius, height)) * static_cast<size_t>(width) +
        static_cast<size_t>(TileIndex(x0 + tx - kRadius, width));
    ref[i] = reference[at];
    dis[i] = distorted[at];
  }
  __syncthreads();

  for (int i = threadIdx.x; i < kStatTileHeight * kColumns; i += kThreads) {
    const int ty = i / kColumns;
    const int tx = i - ty * kColumns;
    const int centre = (ty + kRadius) * kColumns + tx;
    const VifColumnMoments m =
        VifVerticalMoments<kScale>(ref + centre, dis + centre, kColumns, bit_depth);
    mu1[i] = m.mu1;
    mu2[i] = m.mu2;
    ref_sq[i] = m.ref_sq;
    dis_sq[i] = m.dis_sq;
    ref_dis[i] = m.ref_dis;
  }
  __syncthreads();

  VifSums local;
  for (int i = threadIdx.x; i < kStatTileHeight * kStatTileWidth; i += kThreads) {
    const int ty = i / kStatTileWidth;
    const int tx = i - ty * kStatTileWidth;
    if (y0 + ty >= height || x0 + tx >= width) continue;
    const int c = ty * kColumns + tx + kRadius;
    const VifSigmas s =
        VifHorizontalSigmas<kScale>(mu1 + c, mu2 + c, ref_sq + c, dis_sq + c, ref_dis + c);
    VifAccumulatePixel(local, s, log2_table, enhn_gain_limit);
  }
  AddBlockSums(local, sums);
}

// Low-passes a width x height picture (packed rows) with scale kToScale's filter and keeps every
// other row and column: a kDecimateTileWidth x kDecimateTileHeight tile of the next scale's
// (width/2) x (height/2) planes.
template <int kToScale, typename Sample>
__global__ void __launch_bounds__(kThreads)
    VifDecimate(const Sample* reference, const Sample* distorted, int width, int height,
                int bit_depth, uint16_t* out_reference, uint16_t* out_distorted) {
  constexpr int kRadius = VifFilterRadius(kToScale);
  constexpr int kColumns = 2 * kDecimateTileWidth - 1 + 2 * kRadius;
  constexpr int kRows = 2 * kDecimateTileHeight - 1 + 2 * kRadius;
  __shared__ uint16_t ref[kRows * kColumns];
  __shared__ uint16_t dis[kRows * kColumns];
  __shared__ uint32_t low_ref[kDecimateTileHeight * kColumns];
  __shared__ uint32_t low_dis[kDecimateTileHeight * kColumns];

  const int out_width = width / 2;
  const int out_height = height / 2;
  const int ox0 = static_cast<int>(blockIdx.x) * kDecimateTileWidth;
  const int oy0 = static_cast<int>(blockIdx.y) * kDecimateTileHeight;
  const int x0 = 2 * ox0 - kRadius;
  const int y0 = 2 * oy0 - kRadius;
  for (int i = threadIdx.x; i < kRows * kColumns; i += kThreads) {
    const int ty = i / kColumns;
    const int tx = i - ty * kColumns;
    const size_t at = static_cast<size_t>(TileIndex(y0 + ty, height)) * static_cast<size_t>(width) +
                      static_cast<size_t>(TileIndex(x0 + tx, width));
    ref[i] = reference[at];
    dis[i] = distorted[at];
  }
  __syncthreads();

  // The vertical pass on the even rows only: the odd ones are dropped.
  for (int i = threadIdx.x; i < kDecimateTileHeight * kColumns; i += kThreads) {
    const int ty = i / kColumns;
    const int tx = i - ty * kColumns;
    const int centre = (2 * ty + kRadius) * kColumns + tx;
    VifVerticalLowPass<kToScale>(ref + centre, dis + centre, kColumns, bit_depth, &low_ref[i],
                                 &low_dis[i]);
  }
  __syncthreads();

  for (int i = threadIdx.x; i < kDecimateTileHeight * kDecimateTileWidth; i += kThreads) {
    const int ty = i / kDecimateTileWidth;
    const int tx = i - ty * kDecimateTileWidth;
    const int ox = ox0 + tx;
    const int oy = oy0 + ty;
    if (oy >= out_height || ox >= out_width) continue;
    const int c = ty * kColumns + 2 * tx + kRadius;
    const size_t at = static_cast<size_t>(oy) * static_cast<size_t>(out_width) +
                      static_cast<size_t>(ox);
    out_reference[at] = VifHorizontalLowPass<kToScale>(low_ref + c);
    out_distorted[at] = VifHorizontalLowPass<kToScale>(low_dis + c);
  }
}

size_t PlaneBytes(int width, int height) {
  const size_t bytes =
      static_cast<size_t>(width) * static_cast<size_t>(height) * sizeof(uint16_t);
  return (bytes + kPlaneAlignment - 1) / kPlaneAlignment * kPlaneAlignment;
}

int Blocks(int samples, int per_block) { return (samples + per_block - 1) / per_block; }

template <int kScale, typename Sample>
hipError_t LaunchStatistics(const Sample* reference, const Sample* distorted, int width,
                            int height, const VmafVifLaunch& l, hipStream_t stream) {
  const dim3 grid(Blocks(width, kStatTileWidth), Blocks(height, kStatTileHeight));
  hipLaunchKernelGGL((VifScaleStatistics<kScale, Sample>), grid, dim3(kThreads), 0, stream,
                     reference, distorted, width, height, l.bit_depth, l.log2_table,
                     l.enhn_gain_limit, &l.sums->scale[kScale]);
  return hipGetLastError();
}

template <int kToScale, typename Sample>
hipError_t LaunchDecimate(const Sample* reference, const Sample* distorted, int width, int height,
                          const VmafVifLaunch& l, uint16_t* out_reference,
                          uint16_t* out_distorted, hipStream_t stream) {
  const dim3 grid(Blocks(width / 2, kDecimateTileWidth), Blocks(height / 2, kDecimateTileHeight));
  hipLaunchKernelGGL((VifDecimate<kToScale, Sample>), grid, dim3(kThreads), 0, stream, reference,
                     distorted, width, height, l.bit_depth, out_reference, out_distorted);
  return hipGetLastError();
}

// The four scales in libvmaf's order; scale 0 reads the input samples, the others the workspace.
template <typename Sample>
hipError_t LaunchScales(const VmafVifLaunch& l, hipStream_t stream) {
  int widths[kVifScales];
  int heights[kVifScales];
  uint16_t* refs[kVifScales] = {};
  uint16_t* diss[kVifScales] = {};
  widths[0] = l.width;
  heights[0] = l.height;
  char* next = static_cast<char*>(l.workspace);
  for (int s = 1; s < kVifScales; ++s) {
    widths[s] = widths[s - 1] / 2;
    heights[s] = heights[s - 1] / 2;
    const size_t bytes = PlaneBytes(widths[s], heights[s]);
    refs[s] = reinterpret_cast<uint16_t*>(next);
    diss[s] = reinterpret_cast<uint16_t*>(next + bytes);
    next += 2 * bytes;
  }
  const Sample* ref0 = static_cast<const Sample*>(l.reference);
  const Sample* dis0 = static_cast<const Sample*>(l.distorted);
  hipError_t e = hipSuccess;
  if (!l.skip_scale0) {
    e = LaunchStatistics<0>(ref0, dis0, widths[0], heights[0], l, stream);
    if (e != hipSuccess) return e;
  }
  e = LaunchDecimate<1>(ref0, dis0, widths[0], heights[0], l, refs[1], diss[1], stream);
  if (e != hipSuccess) return e;
  e = LaunchStatistics<1>(static_cast<const uint16_t*>(refs[1]),
                          static_cast<const uint16_t*>(diss[1]), widths[1], heights[1], l,
                          stream);
  if (e != hipSuccess) return e;
  e = LaunchDecimate<2>(static_cast<const uint16_t*>(refs[1]),
                        static_cast<const uint16_t*>(diss[1]), widths[1], heights[1], l, refs[2],
                        diss[2], stream);
  if (e != hipSuccess) return e;
  e = LaunchStatistics<2>(static_cast<const uint16_t*>(refs[2]),
                          static_cast<const uint16_t*>(diss[2]), widths[2], heights[2], l,
                          stream);
  if (e != hipSuccess) return e;
  e = LaunchDecimate<3>(static_cast<const uint16_t*>(refs[2]),
                        static_cast<const uint16_t*>(diss[2]), widths[2], heights[2], l, refs[3],
                        diss[3], stream);
  if (e != hipSuccess) return e;
  return LaunchStatistics<3>(static_cast<const uint16_t*>(refs[3]),
                             static_cast<const uint16_t*>(diss[3]), widths[3], heights[3], l,
                             stream);
}

}  // namespace

size_t VmafVifWorkspaceBytes(int width, int height) {
  size_t bytes = 0;
  for (int s = 1; s < kVifScales; ++s) {
    width /= 2;
    height /= 2;
    bytes += 2 * PlaneBytes(width, height);
  }
  return bytes;
}

hipError_t LaunchVmafVif(const VmafVifLaunch& l, hipStream_t stream) {
  if (!VmafVifDeviceServes(l.width, l.height) || l.reference == nullptr ||
      l.distorted == nullptr || l.log2_table == nullptr || l.workspace == nullptr ||
      l.sums == nullptr) {
    return hipErrorInvalidValue;
  }
  if (hipError_t e = hipMemsetAsync(l.sums, 0, sizeof(*l.sums), stream); e != hipSuccess) {
    return e;
  }
  return l.bit_depth > 8 ? LaunchScales<uint16_t>(l, stream) : LaunchScales<uint8_t>(l, stream);
}

}  // namespace ssimd
