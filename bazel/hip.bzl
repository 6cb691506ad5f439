"""Compiles HIP sources for NVIDIA (nvcc, through kernels/hip_portability.h) or AMD (Debian's hipcc).

The default build has no GPU toolchain: the object targets are then incompatible and skipped, and
hip_library() is an empty library, so CPU-only builds never need nvcc or hipcc.
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

HIPCC = "/usr/bin/hipcc"
HIPCC_FLAGS = [
    "-x hip",
    "-std=c++17",
    "-O3",
    "-fPIC",
    "-ffp-contract=off",
    "-fno-fast-math",
    "-fno-gpu-flush-denormals-to-zero",
    "--offload-arch=gfx90a",
    "--offload-arch=gfx1030",
    "--offload-arch=gfx940",
    "-DSSIMD_GPU_ROCM=1",
]

def _compat(setting):
    return select({setting: [], "//conditions:default": ["//bazel:not_requested"]})

def hip_library(name, src, hdrs = [], deps_hdrs = [], deps = [], visibility = None):
    """One .hip translation unit built by the selected GPU toolchain, wrapped as a cc_library.

    Args:
      name: the cc_library name.
      src: the .hip file (kernels and their host-side launchers).
      hdrs: headers the .hip file includes (passed to the compiler and to dependents).
      deps_hdrs: headers of other packages the .hip file includes.
      deps: cc deps of the wrapper (headers only; they are not seen by nvcc/hipcc).
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
        cmd = "%s %s -I. -c $(location %s) -o $@" % (HIPCC, " ".join(HIPCC_FLAGS), src),
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
