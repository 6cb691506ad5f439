#!/usr/bin/env bash
# One fault-and-load scenario against a CPU server on a free loopback port. The scenarios, and why
# each exists, are in BUILD.bazel (fault_load_scenario_test in scenario_test.bzl).
#
#   scenario_test.sh SERVER LOAD ENDING [SERVER_FLAG...] -- [FAULT_LOAD_FLAG...]
#
# fault_load judges the run (no lost, misordered or wrong frame, no unexpected status, health
# always answered; its report lands in the test's outputs). ENDING says how the server's run ends:
#   sigterm_after_load: the test sends SIGTERM once the load is over;
#   sigterm_during_load: fault_load sends it (--sigterm_after) and the server must log its shutdown;
#   left_running: the server is killed when the test ends, and only fault_load's verdict counts.
# With a SIGTERM the server must exit 0 and its log must show no crash or sanitizer report.
set -euo pipefail
SERVER="$1"
LOAD="$2"
ENDING="$3"
shift 3
case "$ENDING" in
  sigterm_after_load | sigterm_during_load | left_running) ;;
  *) echo "unknown ending \"$ENDING\"" >&2; exit 2 ;;
esac
server_flags=()
while (($# > 0)) && [[ "$1" != "--" ]]; do
  server_flags+=("$1")
  shift
done
(($# > 0)) && shift  # the "--"

HERE="$(dirname "${BASH_SOURCE[0]}")"
source "$HERE/server_harness.sh"
OUT="${TEST_UNDECLARED_OUTPUTS_DIR:-${TEST_TMPDIR:-/tmp}}"
LOG="$OUT/server.log"
trap stop_server EXIT

# Flags of both programs may name @FILES_ROOT@ (a fresh directory the server reads and fault_load
# writes its ladder files into) and @URL_PORT@ (a free port for fault_load's slow HTTP server,
# which the server must be allowed to fetch from).
FILES_ROOT="$(mktemp -d "${TEST_TMPDIR:-/tmp}/files_root.XXXXXX")"
URL_PORT="$(free_port)"
substitute() {
  local flag="${1//@FILES_ROOT@/$FILES_ROOT}"
  printf '%s' "${flag//@URL_PORT@/$URL_PORT}"
}
for i in "${!server_flags[@]}"; do server_flags[i]="$(substitute "${server_flags[i]}")"; done
args=()
for a in "$@"; do args+=("$(substitute "$a")"); done
set -- "${args[@]}"

start_server "$SERVER" "$LOG" --backend=cpu --workers=2 "${server_flags[@]}"
echo "server pid $SERVER_PID on port $SERVER_PORT"

load_flags=()
# A server with its metrics port on: fault_load also holds that port busy and scrapes it.
if [[ "$SERVER_METRICS_PORT" != 0 ]]; then
  load_flags+=("--metrics_address=127.0.0.1:$SERVER_METRICS_PORT")
  echo "metrics port $SERVER_METRICS_PORT"
fi
"$LOAD" --target="127.0.0.1:$SERVER_PORT" --server_pid="$SERVER_PID" --max_rss_growth_pct=0 \
  --json_out="$OUT/fault_load.json" "${load_flags[@]}" "$@"

if [[ "$ENDING" == left_running ]]; then
  echo "PASS: fault_load's verdict"
  exit 0
fi
[[ "$ENDING" == sigterm_after_load ]] && kill -TERM "$SERVER_PID"
rc=0
wait "$SERVER_PID" || rc=$?
SERVER_PID=""
if [[ "$rc" != 0 ]]; then
  echo "the server exited with status $rc after SIGTERM" >&2
  tail -n 30 "$LOG" >&2
  exit 1
fi
check_server_log "$LOG"
if [[ "$ENDING" == sigterm_during_load ]] && ! grep -q 'shutting down' "$LOG"; then
  echo "the server did not log its shutdown" >&2
  exit 1
fi
echo "PASS: server exited 0 after the run"
