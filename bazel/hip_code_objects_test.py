"""The ROCm build's shipped binary holds a code object for every architecture it was built for.

Arguments: the architectures bazel/hip.bzl compiles for (comma-separated), then the binaries.
Whatever that list says, MI200 (gfx90a), MI300 (gfx942) and RDNA3 (gfx1100) must be in it: the
GPUs ssimd's users run (docs/operations.md, supported GPUs).
"""
import sys
import unittest

import code_objects

MUST_SUPPORT = ("gfx90a", "gfx942", "gfx1100")


class HipCodeObjectsTest(unittest.TestCase):
    archs = []
    binaries = []

    def test_the_build_targets_the_gpus_users_run(self):
        for arch in MUST_SUPPORT:
            self.assertIn(arch, self.archs)

    def test_every_bundle_of_every_binary_has_every_architecture(self):
        self.assertTrue(self.binaries)
        for path in self.binaries:
            with open(path, "rb") as f:
                bundles = code_objects.list_code_objects(f.read())
            for number, entries in enumerate(bundles):
                print("%s bundle %d: %s" % (path, number,
                                            " ".join(arch for _, arch in entries if arch)))
            self.assertEqual(code_objects.missing_archs(bundles, self.archs), [], path)


if __name__ == "__main__":
    HipCodeObjectsTest.archs = [a for a in sys.argv[1].split(",") if a]
    HipCodeObjectsTest.binaries = sys.argv[2:]
    unittest.main(argv=sys.argv[:1])
