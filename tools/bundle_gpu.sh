#!/usr/bin/env bash
# Builds GPU programs for NVIDIA (--config=nvidia) and packs them with every shared library they
# load except the C library, the loader and the GPU driver, so that they run on a GPU machine that
# has the driver but no Bazel and no toolchain. Two bundles (docs/adr/0025, 0062):
#
#   tools/bundle_gpu.sh [--reference DIR]   ./bundle/: the GPU tests (gpu_scorer_test,
#                                            gpu_exact_sum_test), gpu_bench and
#                                            exact_sum_trace, plus xz for the reference replay
#     bundle/run.sh gpu_scorer_test          the GPU tests (a summary line at the end)
#     bundle/run.sh gpu_bench 50             device time per frame, CPU time beside it, throughput
#   tools/bundle_gpu.sh --bench              ./bundle_bench/: ssimd-bench, the server, gpu_bench,
#                                            the staging benchmark and fault_load
#     bundle_bench/run.sh ssimd-bench --json_out=bench.json
#     bundle_bench/measure.sh OUT_DIR        the committed measurement (tools/bundle/measure.sh)
#     bundle_bench/scaleout.sh OUT_DIR       three CPU replicas against one (16 cores, taskset)
#
#   tools/bundle_gpu.sh --ladder             ./bundle_ladder.tar.xz: the server, ssimd-score
#                                            (and ssimd-score-frames, docs/adr/0089),
#                                            decode_split_bench and the GPU decoding test
#                                            (hw_decode_test) with their FFmpeg libraries,
#                                            the ladder test set
#                                            (tests/data/ladder) and its sources cut to 3 frames
#                                            (from tools/ladder_sources.sh's cache, re-encoded
#                                            losslessly as FFV1), compressed to travel
#     tar -xJf bundle_ladder.tar.xz && bundle_ladder/ladder_parity.sh OUT_DIR
#     (cd bundle_ladder && ./run.sh hw_decode_test)   NVDEC's pictures against the CPU's
#     (cd bundle_ladder && ./run.sh gpu_decoded_planes_test)
#                                            NVDEC's pictures scored where they lie (ADR 0083)
#     (cd bundle_ladder && ./run.sh decode_split_bench --file=F --hw_decode=cuda --decoders=1,2,4,7)
#                                            one file on several NVDEC sessions (docs/adr/0082)
#
#   --reference DIR  copy DIR/expected_scores.json and DIR/clips/*.yuv.xz into the bundle (e.g.
#                    ../shared/reference); without it the tests use the checked-in subset
#                    tests/data/reference when run from the source tree's root.
# SSIMD_LADDER_NO_SOURCES=1 leaves the 3-frame sources (and ladder_parity.sh's use of them) out
# of the --ladder bundle, for a run that brings its own media within the carry limit.
# SSIMD_BAZEL_STARTUP holds Bazel startup options, e.g. "--output_base=/tmp/ob"; SSIMD_BAZEL_JOBS
# the build's --jobs (2). SSIMD_BASELINE_SERVER names an ssimd_server binary of an earlier build
# (--config=nvidia) to put in the --bench bundle as bin/ssimd_server_baseline.
# SSIMD_BUNDLE_EXTRA_TARGETS adds Bazel targets (space-separated) to the chosen bundle's bin/.
set -euo pipefail
cd "$(dirname "$0")/.."

usage="usage: tools/bundle_gpu.sh [--bench | --ladder] [--reference DIR]"
bench=0
ladder=0
reference=""
while (($#)); do
  case "$1" in
    --bench) bench=1; shift ;;
    --ladder) ladder=1; shift ;;
    --reference) reference="${2:?$usage}"; shift 2 ;;
    *) echo "unknown argument: $1 ($usage)" >&2; exit 2 ;;
  esac
done

if ((ladder)); then
  out=bundle_ladder
  targets=(//server:ssimd_server //client:ssimd-score //client:ssimd-score-frames
           //engine/media:hw_decode_test
           //engine/gpu:gpu_decoded_planes_test //bench:decode_split_bench)
elif ((bench)); then
  out=bundle_bench
  targets=(//server:ssimd_server //bench:ssimd-bench //engine/gpu:gpu_bench
           //engine/gpu:staging_benchmark //tools/fault_load:fault_load)
else
  out=bundle
  targets=(//engine/gpu:gpu_scorer_test //engine/gpu:gpu_exact_sum_test //engine/gpu:gpu_bench
           //engine/gpu:exact_sum_trace)
fi

# More programs for this bundle, e.g. //engine/gpu:gpu_scorer_test beside a ladder run.
read -r -a extra_targets <<<"${SSIMD_BUNDLE_EXTRA_TARGETS:-}"
targets+=("${extra_targets[@]}")

read -r -a startup <<<"${SSIMD_BAZEL_STARTUP:-}"
# No convenience symlinks: with another output base they would point the tree's bazel-* links
# into it, and `bazel build //...` in the normal output base would then walk them as packages.
bazel "${startup[@]}" build --config=nvidia --symlink_prefix=/ --jobs="${SSIMD_BAZEL_JOBS:-2}" \
  "${targets[@]}"
bin_dir=$(bazel "${startup[@]}" info --config=nvidia bazel-bin 2>/dev/null)

rm -rf "$out"
mkdir -p "$out/bin" "$out/lib"
binaries=()
for target in "${targets[@]}"; do
  path="${target#//}"
  binaries+=("$bin_dir/${path%%:*}/${path##*:}")
done
((bench || ladder)) || binaries+=("$(command -v xz)")
for b in "${binaries[@]}"; do
  install -m 0755 "$b" "$out/bin/"
done
# An earlier build of the server to measure this one against (new vs old, same run).
if ((bench)) && [[ -n "${SSIMD_BASELINE_SERVER:-}" ]]; then
  install -m 0755 "$SSIMD_BASELINE_SERVER" "$out/bin/ssimd_server_baseline"
  binaries+=("$SSIMD_BASELINE_SERVER")
fi

# The C library, the loader and the driver must be the GPU machine's own.
excluded='/(libc|libm|libpthread|libdl|librt|libresolv|libutil|ld-linux[^/]*|libcuda|libnvidia[^/]*)\.so'
for b in "${binaries[@]}"; do
  ldd "$b" | awk '$2 == "=>" && $3 ~ /^\// {print $3}'
done | sort -u | grep -Ev "$excluded" | while read -r lib; do
  cp -L "$lib" "$out/lib/"
done
# Debug sections are most of the size, and the tree that travels to the GPU machine is bounded.
strip --strip-unneeded "$out"/bin/* "$out"/lib/* 2>/dev/null || true

if [[ -n "$reference" ]]; then
  mkdir -p "$out/reference/clips"
  cp "$reference/expected_scores.json" "$out/reference/"
  cp "$reference"/clips/*.yuv.xz "$out/reference/clips/"
fi

install -m 0755 tools/bundle/run.sh "$out/run.sh"
((bench)) && install -m 0755 tools/bundle/measure.sh "$out/measure.sh"
((bench)) && install -m 0755 tools/bundle/scaleout.sh "$out/scaleout.sh"
if ((ladder)); then
  sources="${SSIMD_LADDER_SOURCES:-/var/cache/ssimd/ladder-sources}"
  mkdir -p "$out/data"
  cp tests/data/ladder/*.mp4 tests/data/ladder/*.mkv tests/data/ladder/*.webm \
     tests/data/ladder/expected_scores*.json "$out/data/"
  if [[ "${SSIMD_LADDER_NO_SOURCES:-0}" != 1 ]]; then
    ffmpeg -v error -y -i "$sources/src_ffv1.mkv" -frames:v 3 -c:v ffv1 "$out/data/src_first3.mkv"
    ffmpeg -v error -y -i "$sources/src10.y4m" -frames:v 3 -c:v ffv1 "$out/data/src10_first3.mkv"
  fi
  install -m 0755 tools/bundle/ladder_parity.sh tools/bundle/ladder_parity_check.py "$out/"
  # hw_decode_test reads tests/data/ladder and tests/data/segments relative to where it runs
  # (the bundle's root).
  mkdir -p "$out/tests/data" && ln -s ../../data "$out/tests/data/ladder"
  cp -r tests/data/segments "$out/tests/data/segments"
  tar -cf - "$out" | xz -T0 -9e >"$out.tar.xz"
  echo "$out.tar.xz: $(du -sh "$out.tar.xz" | cut -f1)"
fi
echo "$out: $(du -sh "$out" | cut -f1) in $(find "$out" -type f | wc -l) files"
