"""The container build file targets a Debian release whose ROCm knows MI300 (gfx942) and RDNA3
(gfx1100), builds with the configuration made for that release, and proves the code objects.

No container engine runs on the build machines, so the Dockerfile is checked as text: these are
the properties docs/adr/0066 depends on.
"""
import re
import unittest

from tests.observability import junit_main

DOCKERFILE = "deploy/container/Dockerfile"
# Debian releases whose ROCm runtime (HIP 5.7.1, HSA 6.1.2 in Debian 13) runs gfx942 and gfx1100.
# Debian 12's ROCm 5.2 does not know gfx942.
ROCM_WITH_MI300 = {"13", "trixie"}


def stage_instructions(text):
    """{stage name: [instruction lines]} with continuation lines joined."""
    joined = re.sub(r"\\\n\s*", " ", text)
    stages, current = {}, None
    for line in joined.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        match = re.match(r"FROM\s+\S+\s+AS\s+(\S+)", line, re.I)
        if match:
            current = match.group(1)
            stages[current] = [line]
        elif current:
            stages[current].append(line)
    return stages


class ContainerImageTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        with open(DOCKERFILE, encoding="utf-8") as f:
            cls.text = f.read()
        cls.stages = stage_instructions(cls.text)

    def test_every_stage_is_a_debian_release_with_rocm_for_mi300(self):
        image = re.search(r"^ARG DEBIAN_IMAGE=debian:(\S+)$", self.text, re.M)
        self.assertIsNotNone(image, "ARG DEBIAN_IMAGE=debian:<release>")
        self.assertIn(image.group(1), ROCM_WITH_MI300)
        # Every stage starts from that release or from an earlier stage.
        for name, lines in self.stages.items():
            base = lines[0].split()[1]
            self.assertTrue(base in ("${DEBIAN_IMAGE}", "${DEBIAN_IMAGE}-slim") or
                            base in self.stages, f"{name} starts from {base}")

    def test_the_build_compiles_with_the_release_own_rocm_packages(self):
        # rocm13 in .bazelrc: the compiler under /usr, not Debian 12's private prefix.
        self.assertRegex(self.text, r"(?m)^ARG BAZEL_CONFIG=rocm13$")
        build = " ".join(self.stages["build"])
        self.assertIn("--config=${BAZEL_CONFIG}", build)
        for package in ("clang-17", "lld-17", "clang-tools-17", "rocm-device-libs-17"):
            self.assertIn(package, build)
        self.assertNotIn("install_hip_toolchain", build)

    def test_the_build_checks_the_code_objects_before_shipping(self):
        build = " ".join(self.stages["build"])
        test = build.find("//bazel:hip_code_objects_test")
        self.assertGreaterEqual(test, 0)
        self.assertLess(test, build.find("/out/bin"), "the check must run before the copy")

    def test_the_runtime_is_the_release_rocm_user_space(self):
        runtime = " ".join(self.stages["rocm-runtime"])
        for package in ("libamdhip64-5", "libhsa-runtime64-1"):
            self.assertIn(package, runtime)
        self.assertIn("FROM rocm-runtime AS runtime", self.stages["runtime"][0])


if __name__ == "__main__":
    junit_main.main()
