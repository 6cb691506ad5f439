#!/usr/bin/env bash
# Reproducer (tagged manual until the server is fixed): ScoreClip messages that do not parse (a
# proto3 string that is not UTF-8) must end the stream with INVALID_ARGUMENT. Today the callback
# reactor sees a failed parse as the client's half-close: a bad config ends FAILED_PRECONDITION
# ("the stream ended before its config message"), and a bad message in the middle of a clip ends
# the stream with OK and a summary of the frames before it, while the client's later frames are
# dropped without a word. See docs/adr/0051.
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
  --concurrency=2 --mix=malformed=1 --unparsable_messages --max_rss_growth_pct=0 \
  --json_out="$OUT/fault_load.json"
