// The GPU backend's context gate: which requests the device can compute exactly. It refuses only
// what the device cannot do (docs/numerics.md §15), so every other request runs on the GPU.
#ifndef SSIMD_ENGINE_GPU_CONTEXT_GATE_H_
#define SSIMD_ENGINE_GPU_CONTEXT_GATE_H_

#include "absl/status/status.h"
#include "engine/features.h"
#include "engine/picture.h"

namespace ssimd {

// The decimation factor float_ssim uses: the forced option when > 0, else libvmaf's automatic
// scale (not capped at 10).
int GpuFloatSsimScale(const Geometry& geometry, const FloatSsimOptions& options);

// The device's limits for float_ssim on a width x height picture at `scale`, without validating
// the request (CheckGpuContext does both).
absl::Status CheckGpuFloatSsimLimits(int width, int height, int scale);


// OK when the device can score this request bit-identically to the CPU; FAILED_PRECONDITION with a
// reason naming the limit otherwise:
//  - float_ssim whose decimated plane is smaller than the 11x11 Gaussian window (libvmaf's value
//    there is a NaN or a signed zero from an empty sum, which the CPU produces), or
//  - float_ssim at a scale above 128, where the exact decimation sum no longer holds.
// Integer ssim runs at every size, float_ms_ssim at every size it is defined for: its pyramid
// keeps the CPU's binary64 sums and order per sample, each scale runs float_ssim's kernels, and
// its means fall back to the host's raster-order sum wherever the device's cannot be proven equal
// (gpu_frame.cc). vmaf runs wherever it is defined (33x33 and up): its sums are integers.
// Malformed requests are INVALID_ARGUMENT, as are float_ms_ssim and vmaf below their sizes.
absl::Status CheckGpuContext(const Geometry& geometry, const FeatureSet& features);

}  // namespace ssimd

#endif  // SSIMD_ENGINE_GPU_CONTEXT_GATE_H_
