# Sourced by the sh_tests here: starts ssimd_server on a free loopback port and stops it.
# start_server BINARY LOGFILE [FLAGS...] sets SERVER_PID and SERVER_PORT, and SERVER_METRICS_PORT
# (0 unless FLAGS turn the metrics port on, e.g. --metrics_address=127.0.0.1:0). The ports come
# from the startup line, which the server logs at level info (so do not pass a --log_level above
# info).

start_server() {
  local binary="$1" log="$2"
  shift 2
  # Port 0: the kernel picks a free port, which the server logs at startup.
  "$binary" --address=127.0.0.1:0 --metrics_address= "$@" > "$log" 2>&1 &
  SERVER_PID=$!
  SERVER_PORT=""
  for _ in $(seq 1 300); do
    SERVER_PORT="$(sed -n 's/.*grpc_port[^0-9]*\([0-9][0-9]*\).*/\1/p' "$log" | head -n 1)"
    if [[ -n "$SERVER_PORT" ]]; then
      SERVER_METRICS_PORT="$(sed -n 's/.*metrics_port[^0-9]*\([0-9][0-9]*\).*/\1/p' "$log" | head -n 1)"
      SERVER_METRICS_PORT="${SERVER_METRICS_PORT:-0}"
      return 0
    fi
    if ! kill -0 "$SERVER_PID" 2>/dev/null; then
      echo "the server exited before it listened; its log:" >&2
      cat "$log" >&2
      return 1
    fi
    sleep 0.1
  done
  echo "the server did not log its port within 30 s; its log:" >&2
  cat "$log" >&2
  return 1
}

# Prints a TCP port on 127.0.0.1 that nothing listens on now, for a listener that must be named
# before another program starts (the slow URL server the ssimd server is allowed to fetch from).
free_port() {
  local port
  for _ in $(seq 1 100); do
    port=$((20000 + RANDOM % 30000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      echo "$port"
      return 0
    fi
  done
  echo "no free port found" >&2
  return 1
}

# Stops the server if it still runs (on any exit of the test).
stop_server() {
  if [[ -n "${SERVER_PID:-}" ]] && kill -0 "$SERVER_PID" 2>/dev/null; then
    kill -KILL "$SERVER_PID" 2>/dev/null || true
  fi
}

# Fails when the server log shows a sanitizer report or a crash.
check_server_log() {
  local log="$1"
  if grep -E 'ERROR: (Address|Leak|Thread|UndefinedBehavior)Sanitizer|runtime error:|WARNING: ThreadSanitizer|Segmentation fault|terminate called' "$log" >&2; then
    echo "the server log shows a crash or a sanitizer report (above)" >&2
    return 1
  fi
}
