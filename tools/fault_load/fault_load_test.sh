#!/usr/bin/env bash
# Short fault-and-load run against a CPU server on a free loopback port: every fault kind, about
# 15 s, then SIGTERM. Passes when fault_load reports no lost, misordered or wrong frame, no
# unexpected status, health always answered, the server alive throughout, and the server then
# exits 0 with a clean log.
set -euo pipefail
SERVER="$1"
LOAD="$2"
HERE="$(dirname "${BASH_SOURCE[0]}")"
source "$HERE/server_harness.sh"
OUT="${TEST_UNDECLARED_OUTPUTS_DIR:-${TEST_TMPDIR:-/tmp}}"
LOG="$OUT/server.log"
trap stop_server EXIT

# A small message limit makes oversized messages cheap to send.
start_server "$SERVER" "$LOG" --backend=cpu --workers=2 --max_message_bytes=1048576 \
  --grace_period=10s --log_level=info
echo "server pid $SERVER_PID on port $SERVER_PORT"

"$LOAD" --target="127.0.0.1:$SERVER_PORT" --server_pid="$SERVER_PID" --duration=15s \
  --concurrency=6 --frames=8 --max_rss_growth_pct=0 --json_out="$OUT/fault_load.json"

kill -TERM "$SERVER_PID"
rc=0
wait "$SERVER_PID" || rc=$?
SERVER_PID=""
if [[ "$rc" != 0 ]]; then
  echo "the server exited with status $rc after SIGTERM" >&2
  tail -n 30 "$LOG" >&2
  exit 1
fi
check_server_log "$LOG"
echo "PASS: server exited 0 after the run"
