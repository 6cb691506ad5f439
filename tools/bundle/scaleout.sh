#!/usr/bin/env bash
# Three replicas against one, side by side in one run: scaleout.sh OUT_DIR [ssimd-bench flags...]
# Runs from the benchmark bundle (tools/bench_bundle.sh) on a Linux host of 16 cores or more; no
# Bazel, no gRPC packages. Each server is a CPU backend (--backend=cpu, 4 workers) pinned with
# taskset to 4 cores of its own; ssimd-bench, the one client, runs on cores 0-3 and drives the same
# end-to-end cell (1080p 8-bit, 12 ScoreClip streams over one balanced channel) against
#   one:   a server on cores 4-7                        (--target 127.0.0.1:PORT)
#   three: servers on cores 4-7, 8-11 and 12-15         (--target ipv4:A,B,C: round-robin)
# twice each, alternating, so that drift of the machine shows. Every score is compared with the
# CPU engine's in the client ("exact" in the table). Writes into OUT_DIR: progress.txt (machine),
# one_N.txt/three_N.txt and .json (each run's table and report), server logs, and summary.txt
# (pairs/s of each run and three/one per round).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dest="${1:?usage: scaleout.sh OUT_DIR [ssimd-bench flags...]}"
shift
mkdir -p "$dest"
if (($(nproc) < 16)); then
  echo "scaleout.sh needs 16 cores (client 0-3, servers 4-15); this host has $(nproc)" >&2
  exit 2
fi
{
  echo "cores: $(nproc)"
  grep -m1 'model name' /proc/cpuinfo
  echo "command: $0 $dest $*"
} >"$dest/progress.txt"

cell=(--sections=e2e --backends=cpu --sizes=1920x1080 --bit_depths=8 --streams=12
      --cell_seconds=10 --warmup_seconds=2 --connection_per_stream=false)
server_cores=(4-7 8-11 12-15)
base_port=52100
pids=()

target=""
start_servers() {  # start_servers COUNT LOG_PREFIX: sets $target once all serve
  local count=$1 prefix=$2 addresses=() i
  for ((i = 0; i < count; ++i)); do
    local port=$((base_port + i)) log="${prefix}_server$i.log"
    LD_LIBRARY_PATH="$here/lib" taskset -c "${server_cores[$i]}" "$here/bin/ssimd_server" \
      --address="127.0.0.1:$port" --backend=cpu --workers=4 --cpu_threads=1 --metrics_address= \
      --grace_period=5s --reflection=false >"$log" 2>&1 &
    pids+=($!)
    addresses+=("127.0.0.1:$port")
    for _ in $(seq 300); do
      grep -q "ssimd started" "$log" && break
      sleep 0.1
    done
    grep -q "ssimd started" "$log" || { echo "server $i did not start: $log" >&2; return 1; }
  done
  if ((count == 1)); then
    target="${addresses[0]}"
  else
    target="ipv4:$(IFS=,; echo "${addresses[*]}")"
  fi
}

stop_servers() {
  local pid
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null; done
  pids=()
}
trap stop_servers EXIT

pairs_per_second() {  # the e2e row's pairs/s from a table file
  awk -F'|' '/^e2e/ {split($2, a, " "); print a[1]; exit}' "$1"
}

for round in 1 2; do
  for which in one three; do
    count=1
    [[ "$which" == three ]] && count=3
    start_servers "$count" "$dest/${which}_$round" || exit 1
    echo "== round $round, $which server(s): $target" >>"$dest/progress.txt"
    timeout 300 taskset -c 0-3 "$here/run.sh" ssimd-bench --target="$target" "${cell[@]}" "$@" \
      --json_out="$dest/${which}_$round.json" --table_out="$dest/${which}_$round.txt" \
      >>"$dest/progress.txt" 2>&1
    echo "ssimd-bench exit $?" >>"$dest/progress.txt"
    stop_servers
  done
done

{
  echo "round  one pairs/s  three pairs/s  three/one"
  for round in 1 2; do
    one=$(pairs_per_second "$dest/one_$round.txt")
    three=$(pairs_per_second "$dest/three_$round.txt")
    awk -v r="$round" -v a="$one" -v b="$three" \
      'BEGIN {printf "%5s  %11s  %13s  %9s\n", r, a, b, (a > 0 ? sprintf("%.2f", b / a) : "n/a")}'
  done
} >"$dest/summary.txt"
cat "$dest/summary.txt"
