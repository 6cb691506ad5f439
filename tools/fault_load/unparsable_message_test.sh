#!/usr/bin/env bash
# ScoreClip messages that do not parse (a proto3 string that is not UTF-8) must end the stream with
# INVALID_ARGUMENT, whether they come first or in the middle of a clip: gRPC's typed reactor
# reported them as the client's half-close, which ended such a stream OK and dropped the frames
# the client kept sending (docs/adr/0051). Every stream here is malformed.
set -euo pipefail
SERVER="$1"
LOAD="$2"
HERE="$(dirname "${BASH_SOURCE[0]}")"
source "$HERE/server_harness.sh"
OUT="${TEST_UNDECLARED_OUTPUTS_DIR:-${TEST_TMPDIR:-/tmp}}"
LOG="$OUT/server.log"
trap stop_server EXIT

start_server "$SERVER" "$LOG" --backend=cpu --workers=2 --max_message_bytes=1048576
"$LOAD" --target="127.0.0.1:$SERVER_PORT" --server_pid="$SERVER_PID" --duration=5s \
  --concurrency=2 --mix=malformed=1 --max_rss_growth_pct=0 \
  --json_out="$OUT/fault_load.json"
