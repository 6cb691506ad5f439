#!/usr/bin/env bash
# The measurement committed under bench/results/: measure.sh OUT_DIR [ssimd-bench flags...]
# Writes into OUT_DIR: progress.txt (machine, then each cell as it finishes), bench.json and
# bench.txt (the main run), gpu_bench.txt (device time per frame), staging_benchmark.txt (host
# staging against memcpy), baseline.txt with
# baseline_old.json and baseline_new.json (when the bundle has bin/ssimd_server_baseline: e2e and
# unary GPU cells against that server and this one, twice each, alternating), fault_load.json and
# fault_load.txt (a fault-and-load run against the GPU server), and the servers' logs.
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

timeout 300 "$here/run.sh" ssimd-bench --json_out="$dest/bench.json" --table_out="$dest/bench.txt" \
  --server_log="$dest/server.log" "$@" 2>>"$progress"
rc=$?
echo "ssimd-bench exit $rc" >>"$progress"
timeout 90 "$here/run.sh" gpu_bench 30 >"$dest/gpu_bench.txt" 2>&1
echo "gpu_bench exit $?" >>"$dest/gpu_bench.txt"
timeout 60 "$here/run.sh" staging_benchmark --benchmark_min_time=0.5 >"$dest/staging_benchmark.txt" 2>&1

if [[ -x "$here/bin/ssimd_server_baseline" ]]; then
  cells=(--sections=e2e,unary --backends=gpu --sizes=1920x1080,3840x2160 --bit_depths=8,10
         --streams=8 --cell_seconds=2)
  {
    for round in 1 2; do
      for which in old new; do
        server="$here/bin/ssimd_server"
        [[ "$which" == old ]] && server="$here/bin/ssimd_server_baseline"
        echo "== round $round, $which server: $server"
        timeout 90 "$here/run.sh" ssimd-bench "${cells[@]}" --server="$server" \
          --json_out="$dest/baseline_${which}.json" --server_log="$dest/baseline_server.log" \
          2>&1 | grep -E "^  (e2e|unary)"
      done
    done
  } >"$dest/baseline.txt" 2>&1
fi

# Faults and load against the GPU server: every healthy stream's scores must equal the CPU
# engine's, nothing may be lost, and resident and device memory must stay flat.
port=50999
LD_LIBRARY_PATH="$here/lib" "$here/bin/ssimd_server" --address="127.0.0.1:$port" --backend=auto \
  --metrics_address= --max_message_bytes=67108864 --grace_period=10s --log_level=warn \
  >"$dest/fault_server.log" 2>&1 &
server_pid=$!
# Four minutes: with 64 MiB messages resident memory climbs to its high-water mark over the first
# minute or two (pinned staging and arenas growing to the largest frames), so a 60 s run judges
# that climb rather than the plateau.
timeout 300 "$here/run.sh" fault_load --target="127.0.0.1:$port" --server_pid="$server_pid" \
  --duration=240s --large --watch_gpu_memory --concurrency=12 --json_out="$dest/fault_load.json" \
  >"$dest/fault_load.txt" 2>&1
echo "fault_load exit $?" >>"$dest/fault_load.txt"
kill -TERM "$server_pid"
wait "$server_pid"
echo "server exit $?" >>"$dest/fault_load.txt"
tail -n 1 "$dest/fault_load.txt"
cat "$dest/gpu_bench.txt"
exit $rc
