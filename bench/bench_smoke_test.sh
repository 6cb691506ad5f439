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
# The JSON is read as JSON (its layout is the writer library's), by the python3 the build has.
python3 - "$out/bench.json" <<'CHECK'
import json, sys
cells = json.load(open(sys.argv[1]))["cells"]
for section in ("engine", "e2e", "unary"):
    if not any(c["section"] == section and c["backend"] == "cpu" for c in cells):
        sys.exit("no %s cell in the JSON" % section)
if any(c["pairs"] == 0 for c in cells):
    sys.exit("a cell completed no pairs")
if any(c["scores_checked"] == 0 or c["scores_mismatched"] != 0 for c in cells):
    sys.exit("scores differ from the CPU engine's, or were not checked")
CHECK
echo "smoke run passed in ${elapsed} s"
