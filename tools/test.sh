#!/usr/bin/env bash
# Builds and runs ssimd's whole test suite on the CPU (GPU tests skip, and say so, without a GPU),
# then prints one line `N passed, N failed, N skipped` counted from the test cases' XML results.
# Extra arguments go to `bazel test` (e.g. --config=asan).
set -uo pipefail
cd "$(dirname "$0")/.."
./tools/install_deps.sh
status_file=$(mktemp)
# --test_summary=short lists every test target with its status (the .bazelrc default lists only
# failures), which summarize_tests.py needs to find every result.
bazel test //... --keep_going --test_summary=short "$@" 2>&1 | tee "$status_file"
bazel_rc=${PIPESTATUS[0]}
testlogs=$(bazel info bazel-testlogs "$@" 2>/dev/null)
python3 tools/summarize_tests.py "$testlogs" "$status_file"
summary_rc=$?
rm -f "$status_file"
# Exit codes: 0 all passed; 3 = some test failed; anything else = the build itself broke.
if [[ $bazel_rc -ne 0 && $bazel_rc -ne 3 ]]; then exit "$bazel_rc"; fi
exit "$summary_rc"
