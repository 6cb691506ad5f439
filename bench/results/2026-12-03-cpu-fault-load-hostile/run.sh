#!/usr/bin/env bash
set -u
cd /tmp/fl
./ssimd_server --address=127.0.0.1:51311 --backend=cpu --max_message_bytes=1048576 \
  --stream_idle_timeout=2s --metrics_address=127.0.0.1:51312 --log_level=warn > server.log 2>&1 &
SP=$!
echo "$SP" > server.pid
sleep 2
date -u +%FT%TZ > started_at
./fault_load --target=127.0.0.1:51311 --server_pid=$SP --duration=600s --concurrency=6 \
  --mix=healthy=80,slow_reader=20,pair=20,cancel=20,deadline=20,vanish=10,malformed=30,oversized=10,bomb=2,idle=2 \
  --server_stream_idle_timeout=2s --metrics_address=127.0.0.1:51312 \
  --json_out=run.json > load.out 2> load.err
echo $? > load.rc
date -u +%FT%TZ > ended_at
kill -TERM $SP
wait $SP
echo $? > server.rc
