#!/usr/bin/env bash
# Builds and runs ssimd's whole test suite on the CPU (GPU tests skip, and say so, without a GPU),
# then prints one line `N passed, N failed, N skipped` counted from the test cases' XML results.
# Extra arguments go to `bazel test` (e.g. --config=asan).
set -uo pipefail
cd "$(dirname "$0")/.."
./tools/install_deps.sh
# The ladder parity tests read sources rebuilt from Debian's archive; without them they skip.
./tools/ladder_sources.sh || echo "test.sh: no ladder sources; the ladder parity tests will skip"
status_file=$(mktemp)
# The full reference set (libvmaf's scores for 53 clip pairs, 36 MB) is optional data kept outside
# the repository; where a checkout has it beside the source tree, or $SSIMD_REFERENCE_DIR names
# it, the full-set replays run on it, and otherwise they skip (tests/data/reference/README.md).
reference_dir=${SSIMD_REFERENCE_DIR:-../shared/reference}
reference_env=()
if [[ -f "$reference_dir/expected_scores.json" ]]; then
  reference_env=("--test_env=SSIMD_REFERENCE_DIR=$(realpath "$reference_dir")")
fi
# --test_summary=short lists every test target with its status (the .bazelrc default lists only
# failures), which summarize_tests.py needs to find every result.
# Two tests per core: about half of the suite's time is spent waiting on timeouts, deadlines and
# idle clients that the hardening and fault tests provoke, not computing. Compiles stay at one
# per core (Bazel's CPU resources still bound them).
test_jobs=$((2 * $(nproc)))
bazel test //... --keep_going --test_summary=short --jobs="$test_jobs" \
  --local_test_jobs="$test_jobs" "${reference_env[@]}" "$@" 2>&1 | tee "$status_file"
bazel_rc=${PIPESTATUS[0]}
testlogs=$(bazel info bazel-testlogs "$@" 2>/dev/null)
python3 tools/summarize_tests.py "$testlogs" "$status_file"
summary_rc=$?
rm -f "$status_file"
# Exit codes: 0 all passed; 3 = some test failed; anything else = the build itself broke.
if [[ $bazel_rc -ne 0 && $bazel_rc -ne 3 ]]; then exit "$bazel_rc"; fi
exit "$summary_rc"
