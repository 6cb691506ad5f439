#!/usr/bin/env bash
# Runs the test suite under a sanitizer configuration of .bazelrc, in an output base of its own so
# that it neither rebuilds nor evicts the normal build (the configurations share output paths).
#
#   tools/sanitize.sh asan                    # the whole suite under AddressSanitizer + UBSan
#   tools/sanitize.sh tsan //server/... //engine/...
#
# Prints the `N passed, N failed, N skipped` line of tools/summarize_tests.py; exits non-zero when a
# test failed or the build broke. SSIMD_SANITIZE_OUTPUT_ROOT sets where the output bases live
# (default ~/.cache). Extra bazel flags can come through SSIMD_SANITIZE_FLAGS (e.g. --jobs=2).
# See docs/adr/0052.
set -uo pipefail
cd "$(dirname "$0")/.."
config="${1:-asan}"
shift || true
case "$config" in
  asan|tsan) ;;
  *) echo "sanitize.sh: expected asan or tsan, got '$config'" >&2; exit 2 ;;
esac
targets=("$@")
if [[ ${#targets[@]} -eq 0 ]]; then
  # Every package git knows, spelled out: `//...` would also walk the bazel-* symlinks of the
  # normal build, which point into another output base and look like source folders from here.
  mapfile -t targets < <(git ls-files '*BUILD.bazel' 'BUILD.bazel' | xargs -n1 dirname |
                         sed -e 's|^\.$||' -e 's|^|//|' -e 's|$|:all|' | sort -u)
fi
output_base="${SSIMD_SANITIZE_OUTPUT_ROOT:-$HOME/.cache}/ssimd_bazel_$config"
# shellcheck disable=SC2206  # flags are meant to split on spaces
extra=(${SSIMD_SANITIZE_FLAGS:-})

status_file=$(mktemp)
trap 'rm -f "$status_file"' EXIT
# Tests tagged no_tsan (timing-bound ones) are left out of the tsan run.
filters=()
if [[ "$config" == tsan ]]; then filters=(--test_tag_filters=-no_tsan); fi
# No convenience symlinks: those in the tree stay the normal build's.
bazel --output_base="$output_base" test --config="$config" --keep_going --symlink_prefix=/ \
  --test_summary=short "${filters[@]}" "${extra[@]}" -- "${targets[@]}" 2>&1 | tee "$status_file"
bazel_rc=${PIPESTATUS[0]}
testlogs=$(bazel --output_base="$output_base" info --config="$config" --symlink_prefix=/ \
  bazel-testlogs 2>/dev/null)
python3 tools/summarize_tests.py "$testlogs" "$status_file"
summary_rc=$?
if [[ $bazel_rc -ne 0 && $bazel_rc -ne 3 ]]; then exit "$bazel_rc"; fi
exit "$summary_rc"
