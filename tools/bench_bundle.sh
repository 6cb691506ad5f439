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
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dest="${1:?usage: measure.sh OUT_DIR [ssimd-bench flags...]}"
shift
mkdir -p "$dest"
{
  nvidia-smi --query-gpu=name,driver_version,pcie.link.gen.current,pcie.link.width.current,clocks.sm,clocks.mem --format=csv
  nproc
  grep -m1 'model name' /proc/cpuinfo
} >"$dest/machine.txt" 2>&1
"$here/run.sh" gpu_bench 30 >"$dest/gpu_bench.txt" 2>&1
echo "gpu_bench exit $?" >>"$dest/gpu_bench.txt"
"$here/run.sh" ssimd-bench --json_out="$dest/bench.json" --table_out="$dest/bench.txt" \
  --server_log="$dest/server.log" "$@" 2>"$dest/bench_progress.txt"
rc=$?
echo "ssimd-bench exit $rc" >>"$dest/bench_progress.txt"
cat "$dest/gpu_bench.txt"
exit $rc
MEASURE
chmod +x "$out/run.sh" "$out/measure.sh"
echo "$out: $(du -sh "$out" | cut -f1) in $(find "$out" -type f | wc -l) files"
