#!/usr/bin/env bash
# Refreshes docs/images/ladder-panels.png from a real run: builds ssimd_server and the traffic
# tool, scores the ladder of tests/data/ladder through ScoreLadder under the title "autumn", lets a
# local Prometheus scrape the server, and draws the dashboard's Ladder row with
# tools/render_ladder_panels.py. Run by hand (not by CI); needs prometheus and python3-matplotlib.
#
# With the rebuilt sources (tools/ladder_sources.sh; $SSIMD_LADDER_SOURCES, else
# /var/cache/ssimd/ladder-sources) every rendition is scored against its real source: the 8-bit
# ones against src.y4m, the 10-bit ones against src10.y4m. Without them the 8-bit renditions are
# scored against the 1080p one, and the picture says less.
#
# Usage: tools/render_ladder_panels.sh [OUT.png [render_ladder_panels.py flags, e.g. --floor=0.98]]
# (OUT.png defaults to docs/images/ladder-panels.png)
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$repo/docs/images/ladder-panels.png}
sources=${SSIMD_LADDER_SOURCES:-/var/cache/ssimd/ladder-sources}
python=${PYTHON:-/usr/bin/python3}
for tool in prometheus "$python"; do
  command -v "$tool" >/dev/null || { echo "$tool is not installed" >&2; exit 1; }
done
"$python" -c 'import matplotlib' 2>/dev/null ||
  { echo "matplotlib is missing: apt-get install python3-matplotlib" >&2; exit 1; }

cd "$repo"
bazel build //server:ssimd_server //tests/observability:traffic
bin=$(bazel info bazel-bin 2>/dev/null)
work=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# The files root: hard links where the file system allows, else copies (the server refuses
# symbolic links that lead out of its root).
mkdir -p "$work/root"
place() { ln "$1" "$work/root/" 2>/dev/null || cp "$1" "$work/root/"; }
for f in tests/data/ladder/*.mp4 tests/data/ladder/*.mkv tests/data/ladder/*.webm; do place "$f"; done
have_sources=0
if [[ -f $sources/src.y4m && -f $sources/src10.y4m ]]; then
  place "$sources/src.y4m"
  place "$sources/src10.y4m"
  have_sources=1
fi

free_port() { "$python" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
grpc_port=$(free_port)
metrics_port=$(free_port)
prom_port=$(free_port)
"$bin/server/ssimd_server" --address="127.0.0.1:$grpc_port" --metrics_address="127.0.0.1:$metrics_port" \
  --files_root="$work/root" --log_level=warn >"$work/server.log" 2>&1 &
pids+=($!)

cat >"$work/prometheus.yml" <<YAML
global: {scrape_interval: 1s, scrape_timeout: 1s}
scrape_configs:
  - job_name: ssimd
    static_configs: [{targets: ["127.0.0.1:$metrics_port"]}]
YAML
prometheus --config.file="$work/prometheus.yml" --storage.tsdb.path="$work/tsdb" \
  --web.listen-address="127.0.0.1:$prom_port" --log.level=warn >"$work/prometheus.log" 2>&1 &
pids+=($!)

ladder() {  # SOURCE NAME=FILE...
  local source=$1
  shift
  "$bin/tests/observability/traffic" --address="127.0.0.1:$grpc_port" --titles=0 \
    --ladder_title=autumn --ladder_source="$source" \
    --ladder_renditions="$(IFS=,; echo "$*")" | grep '^ladder ' || {
    echo "ScoreLadder failed; server log:" >&2
    cat "$work/server.log" >&2
    exit 1
  }
}
eight_bit=(h264_1920x1080=h264_1920x1080.mp4 h264_1280x720=h264_1280x720.mp4
           h264_960x540=h264_960x540.mp4 h264_640x360=h264_640x360.mp4
           h264_426x240=h264_426x240.mp4 hevc_1280x720=hevc_1280x720.mkv
           vp9_960x540=vp9_960x540.webm)
if ((have_sources)); then
  ladder src.y4m "${eight_bit[@]}"
  ladder src10.y4m hevc10_1920x1080=hevc10_1920x1080.mkv hevc10_960x540=hevc10_960x540.mkv
else
  echo "no sources in $sources: the 8-bit renditions are scored against the 1080p one" >&2
  ladder h264_1920x1080.mp4 "${eight_bit[@]:1}"
fi

# Wait until Prometheus holds every rendition scored.
want=$(( have_sources ? 9 : 6 ))
for _ in $(seq 120); do
  got=$(curl -fsS "http://127.0.0.1:$prom_port/api/v1/query" \
          --data-urlencode 'query=count(ssimd_rendition_bytes_per_second)' 2>/dev/null |
        "$python" -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else 0)' \
        2>/dev/null || echo 0)
  [[ $got == "$want" ]] && break
  sleep 0.5
done
[[ $got == "$want" ]] || { echo "Prometheus holds $got of $want renditions" >&2; exit 1; }

"$python" tools/render_ladder_panels.py --prometheus "http://127.0.0.1:$prom_port" --out "$out" "${@:2}"
