"""Fuzz targets as regression tests: the target's source with a replay main over its corpus."""

load("@rules_cc//cc:defs.bzl", "cc_test")

def fuzz_replay_test(name, src, corpus, deps, mutations = 200, **kwargs):
    """A cc_test that runs `src`'s LLVMFuzzerTestOneInput on every file under corpus/<corpus>/.

    Each file also gets `mutations` deterministic mutations. tools/fuzz.sh builds the same source
    with libFuzzer for real fuzzing.
    """
    cc_test(
        name = name,
        srcs = [src],
        args = [
            "--mutations=%d" % mutations,
            "--min_inputs=5",
            "fuzz/corpus/" + corpus,
        ],
        data = native.glob(["corpus/%s/*" % corpus]),
        deps = deps + [
            ":fuzz_support",
            ":replay_main",
        ],
        **kwargs
    )
