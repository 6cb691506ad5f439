#!/usr/bin/env bash
# Ladders and single renditions end to end through ScoreLadder on a GPU machine, several server
# configurations side by side (GPU against CPU decoding, pictures on the device or through the
# host, decoders per file, an older build), every value held to a reference configuration's, bit
# for bit. docs/adr/0081, 0082 and 0083. Replaces the per-run scripts once copied into results
# folders.
#
#   bench/scripts/ladder_throughput.sh BUNDLE_DIR MEDIA_DIR OUT_DIR NAME=SERVER[:FLAGS]...
#
# BUNDLE_DIR: an unpacked `tools/bundle_gpu.sh --ladder` bundle; SERVER is a server binary in its
# bin/ (ssimd_server, or an older build placed beside it); FLAGS, space-separated (quote the
# argument), are added to COMMON_SERVER_FLAGS, e.g.
#   cpu=ssimd_server  'dev=ssimd_server:--hw_decode=cuda'
#   'host=ssimd_server:--hw_decode=cuda --decoded_on_device=false'
#   'n2=ssimd_server:--hw_decode=cuda --decoders_per_file=2'
# MEDIA_DIR: the encoded source and renditions (tests/data/ladder/make_ladder.sh at N frames,
# the source encoded to H.264), the servers' --files_root; MEDIA_DIR/frames may hold the count.
#
# Settings (environment):
#   COMMON_SERVER_FLAGS  default "--backend=gpu --hw_decode_sessions=64"
#   SOURCE       the source file (default src_h264.mp4)
#   ONE          the single rendition, RUNG=FILE (default h264_1920x1080=h264_1920x1080.mp4)
#   LADDER       the ladder's renditions, RUNG=FILE ... (default: the five H.264 rungs
#                h264_WxH=h264_WxH.mp4 from 1920x1080 to 426x240), scored against SOURCE
#   LADDERS      instead of SOURCE and LADDER, a ladder of several sources, each one call of
#                ssimd-score, all at once: SOURCE:RUNG=FILE,RUNG=FILE ... (e.g. an 8-bit and a
#                10-bit part)
#   ONE_ROUNDS   rounds of the single rendition over every configuration (default 2; 0: none)
#   LADDER_RUNS  NAME:COPIES ... ladders run, COPIES at once (default: every configuration x1)
#   REFERENCE    the configuration every value is held to (default: the first)
#   TESTS        bundle tests run first (default "hw_decode_test"; e.g. add
#                gpu_decoded_planes_test)
#   FRAMES       frames per file (default: MEDIA_DIR/frames, else 240)
#   CLIENT_BACKEND  ssimd-score's --backend (default gpu)
#   FEATURES     the features every call asks for, space-separated (default "float_ssim ssim"),
#                e.g. "float_ssim ssim psnr=enable_chroma=false float_ms_ssim"
#
# Writes into OUT_DIR: device.txt, TEST.txt, one_rendition.txt, ladders.txt, metrics.txt (the
# servers' decode, upscale and fallback counters), check.txt, marks.txt, dmon.txt (nvidia-smi
# dmon -s u all along) and server_logs.tgz.
set -u
usage="usage: bench/scripts/ladder_throughput.sh BUNDLE_DIR MEDIA_DIR OUT_DIR NAME=SERVER[:FLAGS]..."
bundle=$(cd "${1:?$usage}" && pwd)
media=$(cd "${2:?$usage}" && pwd)
out=$(mkdir -p "${3:?$usage}" && cd "$3" && pwd)
shift 3
[[ $# -gt 0 ]] || { echo "$usage" >&2; exit 2; }
bin=$bundle/bin
export LD_LIBRARY_PATH=$bundle/lib
work=$(mktemp -d)
read -r -a server_flags <<<"${COMMON_SERVER_FLAGS---backend=gpu --hw_decode_sessions=64}"
source_file=${SOURCE:-src_h264.mp4}
one=${ONE:-h264_1920x1080=h264_1920x1080.mp4}
read -r -a ladder <<<"${LADDER:-h264_1920x1080=h264_1920x1080.mp4 h264_1280x720=h264_1280x720.mp4 h264_960x540=h264_960x540.mp4 h264_640x360=h264_640x360.mp4 h264_426x240=h264_426x240.mp4}"
frames=${FRAMES:-$(cat "$media/frames" 2>/dev/null || echo 240)}

mark() { echo "$(date +%T.%N | cut -c1-12) $*" | tee -a "$out/marks.txt"; }
ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
  echo "cores: $(nproc)"; } | tee "$out/device.txt"
nvidia-smi dmon -s u -o T >"$out/dmon.txt" 2>&1 &
dmon=$!

for t in ${TESTS-hw_decode_test}; do
  mark "$t"
  (cd "$bundle" && timeout 240 ./run.sh "$t") >"$out/$t.txt" 2>&1
  mark "$t rc=$?"; tail -n 2 "$out/$t.txt"
done

names=(); declare -A port; pids=(); p=50900
for spec in "$@"; do
  name=${spec%%=*}; rest=${spec#*=}; server=${rest%%:*}
  flags=(); [[ $rest == *:* ]] && read -r -a flags <<<"${rest#*:}"
  names+=("$name"); port[$name]=$p; p=$((p + 1))
  "$bin/$server" --address=127.0.0.1:${port[$name]} \
    --metrics_address=127.0.0.1:$((port[$name] + 100)) --files_root="$media" --log_level=warn \
    "${server_flags[@]}" "${flags[@]}" >"$work/server-$name.log" 2>&1 &
  pids+=($!)
done
trap 'kill ${pids[*]} $dmon 2>/dev/null; rm -rf "$work"' EXIT
sleep 5
reference=${REFERENCE:-${names[0]}}
common=(--server_files --backend "${CLIENT_BACKEND:-gpu}" --json -q)
for f in ${FEATURES:-float_ssim ssim}; do common+=(--feature "$f"); done

for round in $(seq "${ONE_ROUNDS:-2}"); do
  for name in "${names[@]}"; do
    mark "one $name round $round"
    s=$(date +%s%N)
    timeout 300 "$bin/ssimd-score" --ladder --server 127.0.0.1:${port[$name]} -r "$source_file" \
      -d "$one" "${common[@]}" -o "$work/one-$name-$round" >/dev/null ||
      echo "one rendition $name failed" | tee -a "$out/one_rendition.txt"
    t=$(ms "$s")
    echo "round $round one rendition ($frames frames) $name: $t ms, $(( frames * 1000 / t )) frames/s" |
      tee -a "$out/one_rendition.txt"
  done
done

if [[ -n ${LADDERS:-} ]]; then
  read -r -a groups <<<"$LADDERS"
else
  groups=("$source_file:$(IFS=,; echo "${ladder[*]}")")
fi
renditions=0
for g in "${groups[@]}"; do renditions=$((renditions + $(tr , '\n' <<<"${g#*:}" | wc -l))); done
for run in ${LADDER_RUNS-$(printf '%s:1 ' "${names[@]}")}; do
  name=${run%%:*}; copies=${run#*:}
  mark "ladders $name x$copies"
  s=$(date +%s%N); clients=()
  for ((c = 1; c <= copies; c++)); do
    for gi in "${!groups[@]}"; do
      g=${groups[$gi]}; rungs=()
      IFS=, read -r -a rs <<<"${g#*:}"; for r in "${rs[@]}"; do rungs+=(-d "$r"); done
      timeout 600 "$bin/ssimd-score" --ladder --server 127.0.0.1:${port[$name]} -r "${g%%:*}" \
        "${rungs[@]}" "${common[@]}" -o "$work/ladder-g$gi-$name-x$copies-$c" >/dev/null &
      clients+=($!)
    done
  done
  for c in "${clients[@]}"; do
    wait "$c" || echo "ladders $name x$copies: a client failed" | tee -a "$out/ladders.txt"
  done
  t=$(ms "$s")
  echo "$copies ladder(s) at once, $renditions renditions x $frames frames, $name: $t ms," \
    "$(( copies * renditions * frames * 1000 / t )) rendition frames/s" | tee -a "$out/ladders.txt"
done
kill $dmon 2>/dev/null

for name in "${names[@]}"; do
  echo "== $name"
  python3 -c 'import sys, urllib.request; print(urllib.request.urlopen(sys.argv[1]).read().decode())' \
    "http://127.0.0.1:$((port[$name] + 100))/metrics" | grep -E \
    '^ssimd_(decoded_frames_total|decode_fallbacks_total|decode_sessions|upscales_total|upscale_fallbacks_total|device_exact_sum_fallbacks_total|device_decoded_planes_total)'
done >"$out/metrics.txt"

# Every value of every run against the reference configuration's first run of the same kind.
python3 - "$work" "$reference" <<'PY' | tee "$out/check.txt"
import glob, json, os, sys
work, reference = sys.argv[1:3]
def frames(path):
    return json.load(open(path))["frames"]
for d in sorted(glob.glob(f"{work}/one-*") + glob.glob(f"{work}/ladder-*")):
    base = os.path.basename(d)
    kind = "one" if base.startswith("one-") else "ladder-" + base.split("-")[1]
    refs = sorted(glob.glob(f"{work}/{kind}-{reference}-*"))
    if not refs:
        continue
    same = total = files = 0
    for f in glob.glob(f"{d}/*.json"):
        a, b = frames(f), frames(f"{refs[0]}/{os.path.basename(f)}")
        files += 1
        # Every metric the request asked for (FEATURES), frame by frame; a missing frame or
        # metric counts as unequal.
        total += sum(len(x["metrics"]) for x in (a if len(a) >= len(b) else b))
        same += sum(x["metrics"][m] == y["metrics"].get(m)
                    for x, y in zip(a, b) for m in x["metrics"])
    print(f"{os.path.basename(d)}: {files} renditions, {same} of {total} values equal to "
          f"{os.path.basename(refs[0])}")
PY
kill ${pids[*]} 2>/dev/null; sleep 1
tar -czf "$out/server_logs.tgz" -C "$work" $(cd "$work" && ls server-*.log)
