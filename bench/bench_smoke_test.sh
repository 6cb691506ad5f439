#!/usr/bin/env bash
# CPU-only smoke run of ssimd-bench against the real server: every cell must finish with scores
# identical to the CPU engine's (ssimd-bench exits non-zero otherwise), within a minute, and the
# JSON must hold each section with non-zero throughput.
set -euo pipefail
bench="$1"
server="$2"
out="${TEST_TMPDIR:-$(mktemp -d)}"
start=$(date +%s)
"$bench" --quick --server="$server" --json_out="$out/bench.json" --table_out="$out/bench.txt" \
  --server_log="$out/server.log" >"$out/stdout.txt" 2>"$out/stderr.txt" || {
  echo "ssimd-bench --quick failed:"; cat "$out/stderr.txt" "$out/stdout.txt"
  tail -20 "$out/server.log" || true
  exit 1
}
elapsed=$(($(date +%s) - start))
cat "$out/bench.txt"
if ((elapsed > 60)); then
  echo "the quick run took ${elapsed} s; it must stay under 60 s"; exit 1
fi
for section in engine e2e unary; do
  if ! grep -q "\"section\": \"$section\", \"backend\": \"cpu\"" "$out/bench.json"; then
    echo "no $section cell in the JSON"; exit 1
  fi
done
if grep -q '"pairs": 0,' "$out/bench.json"; then
  echo "a cell completed no pairs"; exit 1
fi
if ! grep -q '"scores_mismatched": 0,' "$out/bench.json" ||
   grep -Eq '"scores_mismatched": [1-9]' "$out/bench.json"; then
  echo "scores differ from the CPU engine's"; exit 1
fi
echo "smoke run passed in ${elapsed} s"
