#!/usr/bin/env bash
# Builds the GPU test and benchmark for NVIDIA (--config=nvidia) and packs them into ./bundle/ with
# every shared library they load except the C library and the GPU driver, plus the xz tool the
# reference replay uses and, optionally, the reference clips. The bundle runs on a GPU machine that
# has the driver but no Bazel and no toolchain:
#
#   bundle/run.sh gpu_scorer_test      # the GPU tests (prints a summary line at the end)
#   bundle/run.sh gpu_bench 50         # device time per frame, CPU time beside it, throughput
#
# Usage: tools/bundle_gpu.sh [--reference DIR]
#   --reference DIR  copy DIR/expected_scores.json and DIR/clips/*.yuv.xz into the bundle
#                    (e.g. ../shared/reference, 36 MB); without it the tests use the checked-in
#                    subset tests/data/reference when run from the source tree's root.
# SSIMD_BAZEL_STARTUP holds Bazel startup options, e.g. "--output_base=/tmp/ob".
set -euo pipefail
cd "$(dirname "$0")/.."

reference=""
while (($#)); do
  case "$1" in
    --reference) reference="$2"; shift 2 ;;
    *) echo "unknown argument: $1 (usage: tools/bundle_gpu.sh [--reference DIR])" >&2; exit 2 ;;
  esac
done

read -r -a startup <<<"${SSIMD_BAZEL_STARTUP:-}"
targets=(//engine/gpu:gpu_scorer_test //engine/gpu:gpu_bench)
bazel "${startup[@]}" build --config=nvidia "${targets[@]}"
bin_dir=$(bazel "${startup[@]}" info --config=nvidia bazel-bin 2>/dev/null)

rm -rf bundle
mkdir -p bundle/bin bundle/lib
binaries=("$bin_dir/engine/gpu/gpu_scorer_test" "$bin_dir/engine/gpu/gpu_bench" "$(command -v xz)")
for b in "${binaries[@]}"; do
  install -m 0755 "$b" bundle/bin/
done

# Libraries from the glibc and driver packages must come from the GPU machine itself.
excluded='/(libc|libm|libpthread|libdl|librt|libresolv|libutil|ld-linux[^/]*|libcuda)\.so'
for b in "${binaries[@]}"; do
  ldd "$b" | awk '$2 == "=>" && $3 ~ /^\// {print $3}'
done | sort -u | grep -Ev "$excluded" | while read -r lib; do
  cp -L "$lib" bundle/lib/
done

# Debug sections are most of the size, and the tree that travels to the GPU machine is bounded.
strip --strip-unneeded bundle/bin/* bundle/lib/* 2>/dev/null || true

if [[ -n "$reference" ]]; then
  mkdir -p bundle/reference/clips
  cp "$reference/expected_scores.json" bundle/reference/
  cp "$reference"/clips/*.yuv.xz bundle/reference/clips/
fi

cat >bundle/run.sh <<'EOF'
#!/usr/bin/env bash
# Runs one bundled program with the bundled libraries: run.sh PROGRAM [ARGS...]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
export LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PATH="$here/bin:$PATH"
if [[ -z "${SSIMD_REFERENCE_DIR:-}" && -f "$here/reference/expected_scores.json" ]]; then
  export SSIMD_REFERENCE_DIR="$here/reference"
fi
program="${1:?usage: run.sh PROGRAM [ARGS...] (programs: $(ls "$here/bin" | tr '\n' ' '))}"
shift
exec "$here/bin/$program" "$@"
EOF
chmod +x bundle/run.sh
echo "bundle: $(du -sh bundle | cut -f1) in $(find bundle -type f | wc -l) files"
