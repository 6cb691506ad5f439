#!/usr/bin/env bash
# Segmented decoding (docs/adr/0082) of one file: bench/decode_split_bench.cc with several
# configurations, one after another, on a GPU machine (NVDEC) or on the CPU. Replaces the
# per-run scripts once copied into results folders.
#
#   bench/scripts/decode_split.sh BUNDLE_DIR FILE OUT_DIR NAME=PROGRAM[:FLAGS]...
#
# BUNDLE_DIR: an unpacked `tools/bundle_gpu.sh --ladder` bundle (its run.sh and bin/); for a CPU
# run, any folder whose bin/ holds the programs (a bazel-bin copy). PROGRAM is decode_split_bench
# or another build of it placed in bin/ (e.g. decode_split_bench_old); FLAGS, space-separated
# (quote the argument), are added to the common ones, e.g.
#   'new=decode_split_bench:--decoders=1,2,3,4,7 --free_shares --independent'
#   'old=decode_split_bench_old:--decoders=1,2,3,4,7'
#   'cpu2=decode_split_bench:--decoders=3,4,5,6,9 --cpu_decoders=2'
#
# Settings (environment):
#   COMMON    flags for every run (default
#             "--hw_decode=cuda --on_device --rounds=2 --min_segment_packets=24"; "" for the CPU)
#   HW_TEST   1: run hw_decode_test first (default 0)
#   TIMEOUT   seconds per run (default 240)
#
# Writes OUT_DIR/split_NAME.txt per run, hw_decode_test.txt, marks.txt (what ran when), and
# device.txt; on NVIDIA machines dmon.txt (nvidia-smi dmon -s u all along).
set -u
usage="usage: bench/scripts/decode_split.sh BUNDLE_DIR FILE OUT_DIR NAME=PROGRAM[:FLAGS]..."
bundle=$(cd "${1:?$usage}" && pwd)
file=$(cd "$(dirname "${2:?$usage}")" && pwd)/$(basename "$2")
out=$(mkdir -p "${3:?$usage}" && cd "$3" && pwd)
shift 3
[[ $# -gt 0 ]] || { echo "$usage" >&2; exit 2; }
read -r -a common <<<"${COMMON---hw_decode=cuda --on_device --rounds=2 --min_segment_packets=24}"
[[ -d $bundle/lib ]] && export LD_LIBRARY_PATH=$bundle/lib
mark() { echo "$(date +%T.%N | cut -c1-12) $*" | tee -a "$out/marks.txt"; }
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader 2>/dev/null
  echo "cores: $(nproc)"; } | tee "$out/device.txt"
dmon=
if command -v nvidia-smi >/dev/null; then
  nvidia-smi dmon -s u -o T >"$out/dmon.txt" 2>&1 & dmon=$!
fi
trap '[[ -n $dmon ]] && kill $dmon 2>/dev/null' EXIT
run() {  # seconds program args...: through the bundle's run.sh where there is one
  local seconds=$1; shift
  if [[ -x $bundle/run.sh ]]; then
    (cd "$bundle" && timeout "$seconds" ./run.sh "$@")
  else
    timeout "$seconds" "$bundle/bin/$1" "${@:2}"
  fi
}
if [[ ${HW_TEST:-0} == 1 ]]; then
  mark "hw_decode_test"
  run 240 hw_decode_test >"$out/hw_decode_test.txt" 2>&1
  mark "hw_decode_test rc=$?"; tail -n 2 "$out/hw_decode_test.txt"
fi
for spec in "$@"; do
  name=${spec%%=*}; rest=${spec#*=}
  program=${rest%%:*}; flags=(); [[ $rest == *:* ]] && read -r -a flags <<<"${rest#*:}"
  mark "$name start: $program ${common[*]} ${flags[*]}"
  run "${TIMEOUT:-240}" "$program" --file="$file" "${common[@]}" "${flags[@]}" \
    >"$out/split_$name.txt" 2>&1
  mark "$name rc=$?"
  tail -n 8 "$out/split_$name.txt"
done
