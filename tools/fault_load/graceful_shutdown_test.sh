#!/usr/bin/env bash
# SIGTERM during load: fault_load keeps 6 slow-sending clip streams going, sends SIGTERM to the
# server 4 s in, keeps starting streams for one more second, and checks that every stream the
# server had accepted finished with all its frames (correct, in order) within the grace period,
# that later ones were refused with an explicit status, and that the server exited. The server
# must exit with status 0.
set -euo pipefail
SERVER="$1"
LOAD="$2"
HERE="$(dirname "${BASH_SOURCE[0]}")"
source "$HERE/server_harness.sh"
OUT="${TEST_UNDECLARED_OUTPUTS_DIR:-${TEST_TMPDIR:-/tmp}}"
LOG="$OUT/server.log"
trap stop_server EXIT

GRACE=10s
start_server "$SERVER" "$LOG" --backend=cpu --workers=2 --grace_period="$GRACE" \
  --log_level=info
echo "server pid $SERVER_PID on port $SERVER_PORT"

# A frame every 40 ms keeps each clip (12 to 36 frames, 0.5 to 1.5 s) in flight across the signal.
"$LOAD" --target="127.0.0.1:$SERVER_PORT" --server_pid="$SERVER_PID" --duration=8s \
  --concurrency=6 --frames=24 --send_delay=40ms --mix=healthy=3,slow_reader=1,pair=1 \
  --sigterm_after=4s --grace="$GRACE" --max_rss_growth_pct=0 \
  --json_out="$OUT/fault_load.json"

rc=0
wait "$SERVER_PID" || rc=$?
SERVER_PID=""
if [[ "$rc" != 0 ]]; then
  echo "the server exited with status $rc after SIGTERM" >&2
  tail -n 30 "$LOG" >&2
  exit 1
fi
check_server_log "$LOG"
grep -q 'shutting down' "$LOG" || { echo "the server did not log its shutdown" >&2; exit 1; }
echo "PASS: in-flight streams finished, server exited 0"
