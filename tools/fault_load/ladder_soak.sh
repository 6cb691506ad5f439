#!/usr/bin/env bash
# The fault-and-load soak with the ladder kinds (issue 37): an ssimd server on a free loopback
# port with a files root, a short stream idle timeout, a slow URL prefix and a decoded-picture
# budget, and fault_load driving every stream kind and every ladder kind against it. It passes
# when fault_load passes (nothing lost, misordered or wrong, every status as its fault calls for,
# health and /metrics answered throughout, the server alive, its peak resident memory within its
# memory at rest plus --budget) and the server then exits 0 on SIGTERM with a clean log.
#
#   ladder_soak.sh [--minutes 10] [--out report.json]
#       CPU server, binaries from bazel-bin (bazel build //server:ssimd_server
#       //tools/fault_load:fault_load first); needs ffmpeg here for the encoded renditions.
#   ladder_soak.sh --prepare DIR
#       Makes the files that need ffmpeg (encoded renditions with their expected pictures, the
#       encoded decode bomb) in DIR, a few MB, for a machine without ffmpeg. The rest fault_load
#       writes itself wherever it runs.
#   ladder_soak.sh --bundle DIR --hw_decode=cuda --minutes 5 [--media DIR/ladder_media]
#       The GPU run from a bundle (tools/bundle_gpu.sh --bench: bin/ssimd_server, bin/fault_load
#       and lib/, built --config=nvidia), with media made by --prepare; needs only bash and
#       coreutils there. To make and run it:
#         tools/bundle_gpu.sh --bench
#         cp tools/fault_load/ladder_soak.sh bundle_bench/
#         tools/fault_load/ladder_soak.sh --prepare bundle_bench/ladder_media
#         # on the GPU machine (DIR/ladder_media is the default --media):
#         bundle_bench/ladder_soak.sh --bundle bundle_bench --hw_decode=cuda --minutes 5 \
#             --out ladder-gpu.json
#
# Other options: --concurrency N (4), --budget BYTES (the server's --decoded_memory_budget and the
# allowed peak over its memory at rest; 268435456), --backend (cpu; auto with --bundle),
# --idle_timeout (5s), --seed N, --work DIR (a fresh temporary directory). The exit status is 0
# only when every check passed.
set -euo pipefail

usage="usage: ladder_soak.sh [--minutes N] [--out FILE] [--bundle DIR] [--hw_decode=cuda]
       [--media DIR] [--concurrency N] [--budget BYTES] [--backend B] [--idle_timeout D]
       [--seed N] [--work DIR] | --prepare DIR"
minutes=10
out=""
bundle=""
hw_decode=""
media=""
prepare=""
concurrency=4
budget=268435456
backend=""
idle_timeout=5s
seed=1
work=""
while (($#)); do
  case "$1" in
    --minutes) minutes="${2:?$usage}"; shift 2 ;;
    --out) out="${2:?$usage}"; shift 2 ;;
    --bundle) bundle="${2:?$usage}"; shift 2 ;;
    --hw_decode=*) hw_decode="${1#*=}"; shift ;;
    --hw_decode) hw_decode="${2:?$usage}"; shift 2 ;;
    --media) media="${2:?$usage}"; shift 2 ;;
    --prepare) prepare="${2:?$usage}"; shift 2 ;;
    --concurrency) concurrency="${2:?$usage}"; shift 2 ;;
    --budget) budget="${2:?$usage}"; shift 2 ;;
    --backend) backend="${2:?$usage}"; shift 2 ;;
    --idle_timeout) idle_timeout="${2:?$usage}"; shift 2 ;;
    --seed) seed="${2:?$usage}"; shift 2 ;;
    --work) work="${2:?$usage}"; shift 2 ;;
    -h | --help) echo "$usage"; exit 0 ;;
    *) echo "unknown argument: $1" >&2; echo "$usage" >&2; exit 2 ;;
  esac
done

# The programs: the bundle's with its libraries, else this checkout's bazel-bin. A copy of this
# script inside a bundle uses that bundle.
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if [[ -z "$bundle" && -x "$here/bin/fault_load" && -x "$here/bin/ssimd_server" ]]; then
  bundle="$here"
fi
if [[ -n "$bundle" ]]; then
  bundle="$(cd "$bundle" && pwd)"
  server="$bundle/bin/ssimd_server"
  load="$bundle/bin/fault_load"
  export LD_LIBRARY_PATH="$bundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  backend="${backend:-auto}"
  [[ -z "$media" && -d "$bundle/ladder_media" ]] && media="$bundle/ladder_media"
else
  root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
  server="$root/bazel-bin/server/ssimd_server"
  load="$root/bazel-bin/tools/fault_load/fault_load"
  backend="${backend:-cpu}"
fi
for program in "$server" "$load"; do
  if [[ ! -x "$program" ]]; then
    echo "ladder_soak: $program is missing (bazel build //server:ssimd_server" \
      "//tools/fault_load:fault_load, or --bundle DIR)" >&2
    exit 2
  fi
done

if [[ -n "$prepare" ]]; then
  mkdir -p "$prepare"
  "$load" --prepare_only --files_root="$prepare"
  # fault_load writes the y4m ladders and the sparse y4m bombs wherever it runs; a sparse file
  # copied by most tools is no longer sparse, so they stay out of what travels.
  rm -rf "$prepare/fault_load/y4m8" "$prepare/fault_load/y4m10" "$prepare/fault_load/url"
  rm -f "$prepare"/fault_load/bomb/*.y4m
  echo "ladder_soak: $prepare: $(du -sh "$prepare" | cut -f1) in $(find "$prepare" -type f | wc -l) files"
  exit 0
fi

work="${work:-$(mktemp -d "${TMPDIR:-/tmp}/ladder_soak.XXXXXX")}"
mkdir -p "$work/files_root"
out="${out:-$work/report.json}"
mkdir -p "$(dirname "$out")"
server_log="${out%.json}.server.log"
ffmpeg_flag=auto
if [[ -n "$media" ]]; then
  cp -R "$media/." "$work/files_root/"
  ffmpeg_flag=none  # only the prepared files, as on a machine without ffmpeg
fi

# A port nothing listens on, for fault_load's slow URL server, which the server must be allowed
# to fetch from before either starts.
url_port=""
for _ in $(seq 1 100); do
  candidate=$((20000 + RANDOM % 30000))
  if ! (exec 3<>"/dev/tcp/127.0.0.1/$candidate") 2>/dev/null; then
    url_port="$candidate"
    break
  fi
done
[[ -n "$url_port" ]] || { echo "ladder_soak: no free port" >&2; exit 1; }

server_flags=(--address=127.0.0.1:0 --metrics_address=127.0.0.1:0 --backend="$backend"
  --files_root="$work/files_root" --stream_idle_timeout="$idle_timeout"
  --allow_url_prefix="http://127.0.0.1:$url_port/" --grace_period=30s --log_level=info)
# A small message limit makes the oversized kind cheap; the GPU run's 1080p clips (--large) need
# 8 MiB frames.
large=0
[[ -n "$bundle" && "$backend" != cpu ]] && large=1
server_flags+=(--max_message_bytes=$((large ? 16777216 : 1048576)))
# A server from before the decoded-picture budget has no such flag; it still runs, and the report
# shows how its bombs were refused.
help="$("$server" --helpfull 2>&1 || true)"
if grep -q -- '--decoded_memory_budget' <<<"$help"; then
  server_flags+=(--decoded_memory_budget="$budget")
else
  echo "ladder_soak: this server has no --decoded_memory_budget; its peak is still judged" >&2
fi
[[ -n "$hw_decode" ]] && server_flags+=(--hw_decode="$hw_decode")

"$server" "${server_flags[@]}" >"$server_log" 2>&1 &
server_pid=$!
stop_server() {
  if kill -0 "$server_pid" 2>/dev/null; then kill -KILL "$server_pid" 2>/dev/null || true; fi
}
trap stop_server EXIT
grpc_port=""
for _ in $(seq 1 600); do
  grpc_port="$(sed -n 's/.*grpc_port[^0-9]*\([0-9][0-9]*\).*/\1/p' "$server_log" | head -n 1)"
  [[ -n "$grpc_port" ]] && break
  if ! kill -0 "$server_pid" 2>/dev/null; then
    echo "ladder_soak: the server exited before it listened:" >&2
    cat "$server_log" >&2
    exit 1
  fi
  sleep 0.1
done
[[ -n "$grpc_port" ]] || { echo "ladder_soak: the server logged no port in 60 s" >&2; exit 1; }
metrics_port="$(sed -n 's/.*metrics_port[^0-9]*\([0-9][0-9]*\).*/\1/p' "$server_log" | head -n 1)"
echo "ladder_soak: server pid $server_pid ($backend${hw_decode:+, hw_decode=$hw_decode})," \
  "gRPC $grpc_port, metrics $metrics_port, slow URLs $url_port, work $work"

# Every stream kind and every ladder kind, ladders about half of the calls.
mix="healthy=6,slow_reader=2,pair=2,cancel=2,deadline=2,vanish=1,malformed=2,oversized=1"
mix+=",bomb=1,idle=1,ladder=6,ladder_cancel=3,ladder_deadline=2,ladder_vanish=2"
mix+=",ladder_stalled_reader=1,decode_bomb=2,ladder_slow_url=2"
load_flags=(--target="127.0.0.1:$grpc_port" --server_pid="$server_pid"
  --duration="${minutes}m" --concurrency="$concurrency" --channels=2 --frames=8 --seed="$seed"
  --mix="$mix" --require_every_kind --bomb_mib=16
  --files_root="$work/files_root" --ffmpeg="$ffmpeg_flag" --url_port="$url_port"
  --server_stream_idle_timeout="$idle_timeout" --idle_margin=5s
  --metrics_address="127.0.0.1:$metrics_port"
  --rss_budget_bytes="$budget" --max_rss_growth_pct=0 --json_out="$out")
((large)) && load_flags+=(--large --watch_gpu_memory)

rc=0
"$load" "${load_flags[@]}" >"$work/fault_load.out" 2>"$work/fault_load.err" || rc=$?
cat "$work/fault_load.err" >&2
tail -n 1 "$work/fault_load.out"

# The server must then drain and exit 0, and its log show no crash.
if kill -TERM "$server_pid" 2>/dev/null; then
  server_rc=0
  wait "$server_pid" || server_rc=$?
else
  server_rc="gone"
fi
trap - EXIT
if [[ "$server_rc" != 0 ]]; then
  echo "ladder_soak: FAIL: the server's exit after SIGTERM: $server_rc" >&2
  rc=1
fi
if grep -E 'ERROR: (Address|Leak|Thread|UndefinedBehavior)Sanitizer|runtime error:|Segmentation fault|terminate called' \
  "$server_log" >&2; then
  echo "ladder_soak: FAIL: the server log shows a crash (above)" >&2
  rc=1
fi
echo "ladder_soak: report $out, server log $server_log"
if ((rc == 0)); then
  echo "ladder_soak: PASS"
else
  echo "ladder_soak: FAIL"
fi
exit "$rc"
