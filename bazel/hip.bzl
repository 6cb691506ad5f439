"""Compiles HIP sources for NVIDIA (nvcc, through kernels/hip_portability.h) or AMD (clang 17).

The default build has no GPU toolchain: the object targets are then incompatible and skipped, and
hip_library() is an empty library, so CPU-only builds never need nvcc or a HIP compiler.

On AMD the sources go straight to Debian 13's clang 17 (what its hipcc 5.7.1 wraps), found under
$(hip_root): /usr on Debian 13, or the private prefix tools/install_hip_toolchain.sh fills on
Debian 12 (.bazelrc sets it per configuration; docs/adr/0066).
"""

load("@rules_cc//cc:defs.bzl", "cc_library")

# Exactness over speed: no FMA contraction, IEEE division and square root, no flush to zero.
# See docs/numerics.md §1 and docs/adr/0020-gpu-kernels-one-arithmetic.md.
NVCC = "/usr/local/cuda/bin/nvcc"
NVCC_FLAGS = [
    "-x cu",
    "-std=c++17",
    "-O3",
    "--fmad=false",
    "-prec-div=true",
    "-prec-sqrt=true",
    "-ftz=false",
    "-Xcompiler -fPIC,-ffp-contract=off,-fno-tree-slp-vectorize",  # host side: see .bazelrc
    "-gencode=arch=compute_80,code=sm_80",
    "-gencode=arch=compute_90,code=[sm_90,compute_90]",
    "-DSSIMD_GPU_NVIDIA=1",
]

# The AMD architectures every ROCm build holds code for, one code object each in one fat binary:
# CDNA2 (MI200), CDNA3 (MI300), RDNA2 and RDNA3. //bazel:hip_code_objects_test checks the binary.
ROCM_OFFLOAD_ARCHS = ["gfx90a", "gfx942", "gfx1030", "gfx1100"]

# What NVIDIA builds hold (NVCC_FLAGS' -gencode lines; keep the two in step): cubins for these,
# and PTX for compute_90 that the driver compiles for anything newer.
NVIDIA_CUBIN_ARCHS = ["sm_80", "sm_90"]
NVIDIA_PTX_ARCHS = ["compute_90"]

HIP_CLANG = "$(hip_root)/lib/llvm-17/bin/clang"
HIP_CLANG_FLAGS = [
    "-x hip",
    "-std=c++17",
    "-O3",
    "-fPIC",
    "-ffp-contract=off",
    "-fno-fast-math",
    "-fno-gpu-flush-denormals-to-zero",
    "-fhip-fp32-correctly-rounded-divide-sqrt",
    "--rocm-path=$(hip_root)",
    "--rocm-device-lib-path=$(hip_root)/lib/llvm-17/lib/clang/17/amdgcn/bitcode",
    "-DSSIMD_GPU_ROCM=1",
] + ["--offload-arch=" + arch for arch in ROCM_OFFLOAD_ARCHS]

def _compat(setting):
    return select({setting: [], "//conditions:default": ["//bazel:not_requested"]})

def hip_library(name, src, hdrs = [], deps_hdrs = [], deps = [], visibility = None):
    """One .hip translation unit built by the selected GPU toolchain, wrapped as a cc_library.

    Args:
      name: the cc_library name.
      src: the .hip file (kernels and their host-side launchers).
      hdrs: headers the .hip file includes (passed to the compiler and to dependents).
      deps_hdrs: headers of other packages the .hip file includes.
      deps: cc deps of the wrapper (headers only; they are not seen by the GPU compiler).
      visibility: as usual.
    """
    inputs = [src] + hdrs + deps_hdrs
    native.genrule(
        name = name + "_nvcc",
        srcs = inputs,
        outs = [name + "_nvcc.o"],
        cmd = "%s %s -I. -c $(location %s) -o $@" % (NVCC, " ".join(NVCC_FLAGS), src),
        target_compatible_with = _compat("//bazel:gpu_nvidia"),
    )
    native.genrule(
        name = name + "_hipcc",
        srcs = inputs,
        outs = [name + "_hipcc.o"],
        cmd = "%s %s -I. -c $(location %s) -o $@" % (HIP_CLANG, " ".join(HIP_CLANG_FLAGS), src),
        target_compatible_with = _compat("//bazel:gpu_rocm"),
    )
    cc_library(
        name = name,
        srcs = select({
            "//bazel:gpu_nvidia": [":" + name + "_nvcc"],
            "//bazel:gpu_rocm": [":" + name + "_hipcc"],
            "//conditions:default": [],
        }),
        hdrs = hdrs,
        deps = deps + select({
            "//bazel:gpu_nvidia": ["@cuda//:runtime"],
            "//bazel:gpu_rocm": ["//bazel:hip_runtime"],
            "//conditions:default": [],
        }),
        visibility = visibility,
    )

def _write_code_targets(targets):
    return "echo '#define SSIMD_GPU_CODE_TARGETS \"%s\"' > $@" % ",".join(targets)

def gpu_code_targets_library(name, visibility = None):
    """A header defining SSIMD_GPU_CODE_TARGETS: what this build's fat binary holds code for.

    "gfx90a,gfx942,..." under --config=rocm, "sm_80,sm_90,compute_90" under --config=nvidia (PTX
    as compute_XY), "" otherwise. The GPU engine compares each device's architecture with it.
    """
    header = name + ".h"
    native.genrule(
        name = name + "_header",
        outs = [header],
        cmd = select({
            "//bazel:gpu_rocm": _write_code_targets(ROCM_OFFLOAD_ARCHS),
            "//bazel:gpu_nvidia": _write_code_targets(NVIDIA_CUBIN_ARCHS + NVIDIA_PTX_ARCHS),
            "//conditions:default": _write_code_targets([]),
        }),
    )
    cc_library(
        name = name,
        hdrs = [header],
        visibility = visibility,
    )
