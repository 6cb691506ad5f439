// libvmaf's integer adm on the device, in the CPU's steps (engine/cpu/vmaf/adm.cc) with its
// per-sample arithmetic (kernels/vmaf_adm_math.h). Per scale: the wavelet step of both pictures,
// one thread per output sample; decoupling and CSF weighting, one thread per band sample; and the
// row sums, one block per row of the summed region. A row's sums are integers, so the block's tree
// adds them exactly; thread 0 then rounds and shifts each as libvmaf does before rows are added,
// and adds it to the frame's total with a 64-bit atomic, wrapping as libvmaf's totals wrap. The
// totals are thus the CPU's whatever the schedule.
#include <cstddef>
#include <cstdint>

#include "kernels/hip_portability.h"
#include "kernels/vmaf_adm_kernels.h"
#include "kernels/vmaf_adm_math.h"

namespace ssimd {
namespace {

using Ull = unsigned long long;  // NOLINT(runtime/int): the type atomicAdd takes

constexpr int kTileX = 32;
constexpr int kTileY = 8;
constexpr int kRowThreads = 128;

// One picture's bands of one scale.
struct Bands {
  int32_t* a;
  int32_t* h;
  int32_t* v;
  int32_t* d;
};

// One scale's planes after decoupling: the restored and additive parts, and the CSF-weighted
// values and masking values of each (h, v, d).
struct DecoupledPlanes {
  int32_t* restored[3];
  int32_t* additive[3];
  int32_t* csf_additive[3];
  int32_t* mask_additive[3];
  int32_t* csf_restored[3];
  int32_t* mask_restored[3];
};

// Planes in the workspace, each of the scale-0 band's size rounded up to 256 bytes.
enum Plane {
  kRefA0,
  kRefA1,
  kDisA0,
  kDisA1,
  kRefH,
  kRefV,
  kRefD,
  kDisH,
  kDisV,
  kDisD,
  kDecoupled,  // 18 planes: DecoupledPlanes in order
  kPlanes = kDecoupled + 18,
};

size_t PlaneElements(int width, int height) {
  const size_t n = static_cast<size_t>((width + 1) / 2) * static_cast<size_t>((height + 1) / 2);
  return (n + 63) / 64 * 64;
}

template <typename Sample>
__global__ void Dwt0Kernel(const Sample* reference, const Sample* distorted, int width,
                           int height, int bit_depth, int out_width, int out_height,
                           Bands ref_out, Bands dis_out) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= out_width || y >= out_height) return;
  const Sample* src = blockIdx.z == 0 ? reference : distorted;
  const Bands& out = blockIdx.z == 0 ? ref_out : dis_out;
  const Sample* rows[4];
  for (int k = 0; k < 4; ++k) {
    rows[k] = src + static_cast<size_t>(AdmDwtSourceIndex(2 * y - 1 + k, height)) * width;
  }
  int32_t low[4], high[4];
  for (int k = 0; k < 4; ++k) {
    AdmDwt0VerticalAt(rows, AdmDwtSourceIndex(2 * x - 1 + k, width), bit_depth, &low[k],
                      &high[k]);
  }
  const size_t i = static_cast<size_t>(y) * out_width + x;
  AdmDwtHorizontal(low[0], low[1], low[2], low[3], high[0], high[1], high[2], high[3], 0,
                   &out.a[i], &out.v[i], &out.h[i], &out.d[i]);
}

// Scales 1 to 3: the step over the previous scale's low bands (width x height).
__global__ void Dwt123Kernel(const int32_t* ref_in, const int32_t* dis_in, int width, int height,
                             int scale, int out_width, int out_height, Bands ref_out,
                             Bands dis_out) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= out_width || y >= out_height) return;
  const int32_t* src = blockIdx.z == 0 ? ref_in : dis_in;
  const Bands& out = blockIdx.z == 0 ? ref_out : dis_out;
  const int32_t* rows[4];
  for (int k = 0; k < 4; ++k) {
    rows[k] = src + static_cast<size_t>(AdmDwtSourceIndex(2 * y - 1 + k, height)) * width;
  }
  int32_t low[4], high[4];
  for (int k = 0; k < 4; ++k) {
    AdmDwt123VerticalAt(rows, AdmDwtSourceIndex(2 * x - 1 + k, width), scale, &low[k], &high[k]);
  }
  const size_t i = static_cast<size_t>(y) * out_width + x;
  AdmDwtHorizontal(low[0], low[1], low[2], low[3], high[0], high[1], high[2], high[3], scale,
                   &out.a[i], &out.v[i], &out.h[i], &out.d[i]);
}

// Decoupling and CSF weighting inside the filter region; 0 elsewhere, as the CPU's planes hold
// there (the masking threshold may read them).
__global__ void DecoupleKernel(Bands ref, Bands dis, int width, int height, int scale,
                               double gain_limit, AdmScaleFactors factors, bool with_aim,
                               DecoupledPlanes out) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  const size_t i = static_cast<size_t>(y) * width + x;
  const AdmRegion region = AdmFilterRegion(width, height);
  int32_t restored[3] = {0, 0, 0};
  int32_t additive[3] = {0, 0, 0};
  int32_t csf_a[3] = {0, 0, 0}, mask_a[3] = {0, 0, 0};
  int32_t csf_r[3] = {0, 0, 0}, mask_r[3] = {0, 0, 0};
  if (y >= region.top && y < region.bottom && x >= region.left && x < region.right) {
    AdmDecouple(ref.h[i], ref.v[i], ref.d[i], dis.h[i], dis.v[i], dis.d[i], scale, gain_limit,
                restored, additive);
    for (int b = 0; b < 3; ++b) {
      AdmCsfAt(additive[b], factors.fixed[b], b, scale, &csf_a[b], &mask_a[b]);
      if (with_aim) AdmCsfAt(restored[b], factors.fixed[b], b, scale, &csf_r[b], &mask_r[b]);
    }
  }
  for (int b = 0; b < 3; ++b) {
    out.restored[b][i] = restored[b];
    out.additive[b][i] = additive[b];
    out.csf_additive[b][i] = csf_a[b];
    out.mask_additive[b][i] = mask_a[b];
    if (with_aim) {
      out.csf_restored[b][i] = csf_r[b];
      out.mask_restored[b][i] = mask_r[b];
    }
  }
}

__device__ AdmPlanes3 Planes3Of(int32_t* const planes[3]) {
  AdmPlanes3 p;
  for (int b = 0; b < 3; ++b) p.band[b] = planes[b];
  return p;
}

// Block per row of the summed region: the row's numerator, AIM and denominator sums per band
// (9 integers), each rounded and shifted, then added to the scale's totals.
__global__ void RowSumsKernel(Bands ref, DecoupledPlanes planes, int scale, AdmScalePlan plan,
                              bool with_aim, AdmScaleSums* totals) {
  __shared__ uint64_t scratch[9][kRowThreads];
  const int width = plan.width;
  const int height = plan.height;
  const AdmRegion region = AdmSumRegion(width, height);
  const int y = region.top + static_cast<int>(blockIdx.x);
  const AdmPlanes3 restored = Planes3Of(planes.restored);
  const AdmPlanes3 additive = Planes3Of(planes.additive);
  const AdmPlanes3 csf_a = Planes3Of(planes.csf_additive);
  const AdmPlanes3 mask_a = Planes3Of(planes.mask_additive);
  const AdmPlanes3 csf_r = Planes3Of(planes.csf_restored);
  const AdmPlanes3 mask_r = Planes3Of(planes.mask_restored);
  const int32_t* den_bands[3] = {ref.h, ref.v, ref.d};
  const size_t row = static_cast<size_t>(y) * width;
  // Unsigned: libvmaf's signed row sums wrap as two's complement, which these reproduce.
  uint64_t sums[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
  for (int x = region.left + static_cast<int>(threadIdx.x); x < region.right; x += kRowThreads) {
    int64_t s[3];
    AdmMaskedRowSums(restored, csf_a, mask_a, width, width, height, y, x, x + 1, plan.masking, s);
    for (int b = 0; b < 3; ++b) sums[b] += static_cast<uint64_t>(s[b]);
    if (with_aim) {
      AdmMaskedRowSums(additive, csf_r, mask_r, width, width, height, y, x, x + 1, plan.masking,
                       s);
      for (int b = 0; b < 3; ++b) sums[3 + b] += static_cast<uint64_t>(s[b]);
    }
    for (int b = 0; b < 3; ++b) {
      sums[6 + b] += AdmReferenceCube(den_bands[b][row + x], scale, plan.denominator);
    }
  }
  for (int q = 0; q < 9; ++q) scratch[q][threadIdx.x] = sums[q];
  __syncthreads();
  for (int half = kRowThreads / 2; half > 0; half /= 2) {
    if (static_cast<int>(threadIdx.x) < half) {
      for (int q = 0; q < 9; ++q) scratch[q][threadIdx.x] += scratch[q][threadIdx.x + half];
    }
    __syncthreads();
  }
  if (threadIdx.x != 0) return;
  for (int b = 0; b < 3; ++b) {
    const int64_t num = AdmMaskingRowTerm(static_cast<int64_t>(scratch[b][0]),
                                          plan.masking_row_shift, plan.masking_row_round);
    atomicAdd(reinterpret_cast<Ull*>(&totals->numerator[b]), static_cast<Ull>(num));
    if (with_aim) {
      const int64_t aim = AdmMaskingRowTerm(static_cast<int64_t>(scratch[3 + b][0]),
                                            plan.masking_row_shift, plan.masking_row_round);
      atomicAdd(reinterpret_cast<Ull*>(&totals->aim[b]), static_cast<Ull>(aim));
    }
    const uint64_t den = AdmDenominatorRowTerm(scratch[6 + b][0], plan.denominator);
    atomicAdd(reinterpret_cast<Ull*>(&totals->denominator[b]), static_cast<Ull>(den));
  }
}

dim3 GridFor(int width, int height, int pictures) {
  return dim3((width + kTileX - 1) / kTileX, (height + kTileY - 1) / kTileY, pictures);
}

}  // namespace

size_t VmafAdmWorkspaceBytes(int width, int height) {
  if (width <= 0 || height <= 0) return 0;
  return static_cast<size_t>(kPlanes) * PlaneElements(width, height) * sizeof(int32_t);
}

hipError_t LaunchVmafAdm(const VmafAdmLaunch& l, hipStream_t stream) {
  if (l.width < kAdmMinSide || l.height < kAdmMinSide || l.reference == nullptr ||
      l.distorted == nullptr || l.workspace == nullptr || l.sums == nullptr) {
    return hipErrorInvalidValue;
  }
  if (l.bit_depth != 8 && l.bit_depth != 10 && l.bit_depth != 12 && l.bit_depth != 16) {
    return hipErrorInvalidValue;
  }
  AdmPlan plan;
  if (!AdmPlanFor(l.width, l.height, l.options, &plan)) return hipErrorInvalidValue;

  const size_t n = PlaneElements(l.width, l.height);
  int32_t* base = static_cast<int32_t*>(l.workspace);
  auto plane = [&](int k) { return base + static_cast<size_t>(k) * n; };
  // The low band alternates between two planes per picture: a scale reads the previous one's.
  Bands ref_bands[2], dis_bands[2];
  for (int parity = 0; parity < 2; ++parity) {
    ref_bands[parity] = Bands{plane(kRefA0 + parity), plane(kRefH), plane(kRefV), plane(kRefD)};
    dis_bands[parity] = Bands{plane(kDisA0 + parity), plane(kDisH), plane(kDisV), plane(kDisD)};
  }
  DecoupledPlanes decoupled;
  for (int b = 0; b < 3; ++b) {
    decoupled.restored[b] = plane(kDecoupled + b);
    decoupled.additive[b] = plane(kDecoupled + 3 + b);
    decoupled.csf_additive[b] = plane(kDecoupled + 6 + b);
    decoupled.mask_additive[b] = plane(kDecoupled + 9 + b);
    decoupled.csf_restored[b] = plane(kDecoupled + 12 + b);
    decoupled.mask_restored[b] = plane(kDecoupled + 15 + b);
  }

  if (hipError_t e = hipMemsetAsync(l.sums, 0, sizeof(AdmSums), stream); e != hipSuccess) {
    return e;
  }
  const dim3 tile(kTileX, kTileY);
  const bool with_aim = !l.options.skip_aim;
  for (int scale = 0; scale < 4; ++scale) {
    const AdmScalePlan& p = plan.scale[scale];
    const Bands& ref = ref_bands[scale % 2];
    const Bands& dis = dis_bands[scale % 2];
    if (scale == 0) {
      if (l.bit_depth > 8) {
        hipLaunchKernelGGL(Dwt0Kernel<uint16_t>, GridFor(p.width, p.height, 2), tile, 0, stream,
                           static_cast<const uint16_t*>(l.reference),
                           static_cast<const uint16_t*>(l.distorted), l.width, l.height,
                           l.bit_depth, p.width, p.height, ref, dis);
      } else {
        hipLaunchKernelGGL(Dwt0Kernel<uint8_t>, GridFor(p.width, p.height, 2), tile, 0, stream,
                           static_cast<const uint8_t*>(l.reference),
                           static_cast<const uint8_t*>(l.distorted), l.width, l.height,
                           l.bit_depth, p.width, p.height, ref, dis);
      }
    } else {
      const AdmScalePlan& in = plan.scale[scale - 1];
      hipLaunchKernelGGL(Dwt123Kernel, GridFor(p.width, p.height, 2), tile, 0, stream,
                         ref_bands[(scale - 1) % 2].a, dis_bands[(scale - 1) % 2].a, in.width,
                         in.height, scale, p.width, p.height, ref, dis);
    }
    if (hipError_t e = hipGetLastError(); e != hipSuccess) return e;
    if (!p.summed) continue;
    hipLaunchKernelGGL(DecoupleKernel, GridFor(p.width, p.height, 1), tile, 0, stream, ref, dis,
                       p.width, p.height, scale, l.options.enhn_gain_limit, p.factors, with_aim,
                       decoupled);
    if (hipError_t e = hipGetLastError(); e != hipSuccess) return e;
    const AdmRegion region = AdmSumRegion(p.width, p.height);
    hipLaunchKernelGGL(RowSumsKernel, dim3(region.bottom - region.top), dim3(kRowThreads), 0,
                       stream, ref, decoupled, scale, p, with_aim, &l.sums->scale[scale]);
    if (hipError_t e = hipGetLastError(); e != hipSuccess) return e;
  }
  return hipSuccess;
}

}  // namespace ssimd
