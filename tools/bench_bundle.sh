#!/usr/bin/env bash
# Builds the benchmark, the server and the kernel benchmark for NVIDIA (--config=nvidia) and packs
# them into ./bundle_bench/ with every shared library they load except the C library and the GPU
# driver, so that they run on a GPU machine with a driver but no toolchain:
#
#   bundle_bench/run.sh ssimd-bench --json_out=bench.json   # any bundled program, with its libraries
#   bundle_bench/measure.sh OUT_DIR                         # the committed measurement (see below)
#
# measure.sh runs gpu_bench (device time per frame) and then ssimd-bench with the default cells,
# and writes both outputs, the JSON and the table, plus nvidia-smi's view, into OUT_DIR.
#
# Usage: tools/bench_bundle.sh
# SSIMD_BAZEL_STARTUP holds Bazel startup options, e.g. "--output_base=/tmp/ob".
set -euo pipefail
cd "$(dirname "$0")/.."

read -r -a startup <<<"${SSIMD_BAZEL_STARTUP:-}"
targets=(//server:ssimd_server //bench:ssimd-bench //engine/gpu:gpu_bench)
bazel "${startup[@]}" build --config=nvidia --jobs="${SSIMD_BAZEL_JOBS:-2}" "${targets[@]}"
bin_dir=$(bazel "${startup[@]}" info --config=nvidia bazel-bin 2>/dev/null)

out=bundle_bench
rm -rf "$out"
mkdir -p "$out/bin" "$out/lib"
binaries=("$bin_dir/server/ssimd_server" "$bin_dir/bench/ssimd-bench" "$bin_dir/engine/gpu/gpu_bench")
for b in "${binaries[@]}"; do
  install -m 0755 "$b" "$out/bin/"
done

# The C library, the loader and the driver must be the GPU machine's own.
excluded='/(libc|libm|libpthread|libdl|librt|ld-linux[^/]*|libcuda|libnvidia[^/]*)\.so'
for b in "${binaries[@]}"; do
  ldd "$b" | awk '$2 == "=>" && $3 ~ /^\// {print $3}'
done | sort -u | grep -Ev "$excluded" | while read -r lib; do
  cp -L "$lib" "$out/lib/"
done
# Debug sections are most of the size; the tree that travels to the GPU machine is bounded.
strip --strip-unneeded "$out"/bin/* "$out"/lib/* 2>/dev/null || true

cat >"$out/run.sh" <<'RUN'
#!/usr/bin/env bash
# Runs one bundled program with the bundled libraries: run.sh PROGRAM [ARGS...]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
export LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
program="${1:?usage: run.sh PROGRAM [ARGS...] (programs: $(ls "$here/bin" | tr '\n' ' '))}"
shift
exec "$here/bin/$program" "$@"
RUN

cat >"$out/measure.sh" <<'MEASURE'
#!/usr/bin/env bash
# The measurement committed under bench/results/: measure.sh OUT_DIR [ssimd-bench flags...]
# Writes 8 files: progress.txt (machine, then each cell as it finishes), bench.json and
# bench.txt (the main run), gpu_bench.txt (device time per frame), variants.txt with
# variant_inflight.json and variant_shared.json (e2e GPU at 8 and 16 streams with 16 frames in
# flight per stream, and with every stream on one connection), and server.log.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dest="${1:?usage: measure.sh OUT_DIR [ssimd-bench flags...]}"
shift
mkdir -p "$dest"
progress="$dest/progress.txt"
{
  nvidia-smi --query-gpu=name,driver_version,pcie.link.gen.current,pcie.link.width.current,clocks.sm,clocks.mem --format=csv
  echo "cores: $(nproc)"
  grep -m1 'model name' /proc/cpuinfo
} >"$progress" 2>&1

timeout 360 "$here/run.sh" ssimd-bench --json_out="$dest/bench.json" --table_out="$dest/bench.txt" \
  --server_log="$dest/server.log" "$@" 2>>"$progress"
rc=$?
echo "ssimd-bench exit $rc" >>"$progress"
timeout 90 "$here/run.sh" gpu_bench 30 >"$dest/gpu_bench.txt" 2>&1
echo "gpu_bench exit $?" >>"$dest/gpu_bench.txt"
variant=(--sections=e2e --backends=gpu --sizes=1920x1080,3840x2160 --bit_depths=8 --streams=8,16)
{
  echo "== e2e GPU, 16 frames in flight per stream (server default 4)"
  timeout 60 "$here/run.sh" ssimd-bench "${variant[@]}" --server_flags=--max_frames_in_flight=16 \
    --json_out="$dest/variant_inflight.json" --server_log="$dest/server.log" 2>>"$progress"
  echo "== e2e GPU, every stream on one shared connection"
  timeout 60 "$here/run.sh" ssimd-bench "${variant[@]}" --connection_per_stream=false \
    --json_out="$dest/variant_shared.json" --server_log="$dest/server.log" 2>>"$progress"
} >"$dest/variants.txt" 2>&1
cat "$dest/gpu_bench.txt"
exit $rc
MEASURE
chmod +x "$out/run.sh" "$out/measure.sh"
echo "$out: $(du -sh "$out" | cut -f1) in $(find "$out" -type f | wc -l) files"
