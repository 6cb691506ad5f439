"""A kernel's test on a device: the kernel's HIP library where a GPU build has one, the support the
device tests share, and the reference subset as data. Without a GPU build the test compiles its
host half only and skips, saying why. Tagged gpu_device, as every test that needs a device is."""

load("@rules_cc//cc:defs.bzl", "cc_test")

def device_kernel_test(name, kernels, deps = []):
    """A medium cc_test named `name` from `name`.cc that runs `kernels` (a hip_library) on a device."""
    cc_test(
        name = name,
        size = "medium",
        srcs = [name + ".cc"],
        data = ["//tests/data:reference_subset"],
        linkstatic = True,
        tags = ["gpu_device"],
        deps = deps + [
            ":device_test_support",
            "//base:double_bits",
            "//engine:synthetic_picture",
            "//tests/reference:psnr_replay",
            "//tests/reference:reference_set",
            "@sys//:gtest_main",
        ] + select({
            "//bazel:gpu_nvidia": [kernels],
            "//bazel:gpu_rocm": [kernels],
            "//conditions:default": [],
        }),
    )
