// Whether this build's fat binary holds code a given GPU can run. A device without it cannot
// launch ssimd's kernels, so the GPU engine leaves it out (with the reason) instead of failing
// on the first frame. Device-free, so it is tested without a GPU.
#ifndef SSIMD_ENGINE_GPU_DEVICE_ARCH_H_
#define SSIMD_ENGINE_GPU_DEVICE_ARCH_H_

#include <string>
#include <string_view>

namespace ssimd {

// What this build holds code for, comma-separated: "gfx90a,gfx942,gfx1030,gfx1100" (ROCm),
// "sm_80,sm_90,compute_90" (NVIDIA: cubins, and PTX as compute_XY), "" (CPU-only build).
// bazel/hip.bzl is where the list is decided.
std::string_view CompiledGpuCodeTargets();

// The processor part of a device architecture: HIP reports AMD devices with their target
// features ("gfx90a:sramecc+:xnack-"); code objects built without features run on either setting.
std::string_view ProcessorOf(std::string_view arch);

// True when `targets` (as CompiledGpuCodeTargets()) has code for a device of architecture `arch`:
// - AMD (gfxNNN): a code object for exactly that processor; the ISA differs between processors.
// - NVIDIA (sm_XY): a cubin for sm_XZ with Z <= Y (same major revision), or PTX for compute_VW
//   with VW <= XY, which the driver compiles for the device.
bool HasCodeFor(std::string_view arch, std::string_view targets);

}  // namespace ssimd

#endif  // SSIMD_ENGINE_GPU_DEVICE_ARCH_H_
