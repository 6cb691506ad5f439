# On the GPU machine, from the repository's root: NVDEC decoding of files four times as long as
# those of 2026-12-05h (2304 frames, 96 s at 24 fps), where the decoders' start-up weighs less:
#   1. decode_split_bench on the 1080p rendition: 1 to 7 decoders, free shares, independent;
#   2. one 1080p rendition against its source end to end, 1 to 4 decoders per file and CPU
#      decoding, two rounds;
#   3. one ladder (the source and five H.264 renditions, 1080p to 240p) with GPU and with CPU
#      decoding, then four such ladders at once (1 and 2 decoders per file, CPU decoding),
#      nvidia-smi dmon recording the decoders' use all along (marks.txt says what ran when);
#   4. every value of every run against the CPU-decoding server's, bit for bit.
#   [PARTS="split one ladders"] bash bench/results/2026-12-06-nvdec-long-files/run_on_gpu_machine.sh PACK MEDIA_DIR
# PARTS leaves out what it does not name (1: split, 2: one, 3: ladders; 4 always runs).
set -u
pack=$1; media=$(cd "$2" && pwd); w=/tmp/lf; out=${OUT:-$w/out}
rm -rf "$w"; mkdir -p "$w" "$out"
tar -xJf "$pack" -C "$w"
b=$w/bundle_ladder; bin=$b/bin
export LD_LIBRARY_PATH=$b/lib
mark() { echo "$(date +%T.%N | cut -c1-12) $*" | tee -a "$out/marks.txt"; }
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; nproc; } |
  tee "$out/marks.txt"
nvidia-smi dmon -s u -o T > "$out/dmon.txt" 2>&1 &
dmon=$!
rendition=$media/h264_1920x1080_gop48_long.mp4
frames=$(cat "$media/frames")

parts=" ${PARTS:-split one ladders} "
if [[ $parts == *" split "* ]]; then
  mark "split start"
  (cd "$b" && timeout 240 ./run.sh decode_split_bench --file="$rendition" --hw_decode=cuda \
    --on_device --rounds=2 --min_segment_packets=24 --decoders=1,2,3,4,7 --free_shares \
    --independent) > "$out/split.txt" 2>&1
  mark "split rc=$?"
  tail -n 12 "$out/split.txt"
fi

declare -A port=([cpu]=50900 [n1]=50901 [n2]=50902 [n3]=50903 [n4]=50904)
pids=()
for v in cpu n1 n2 n3 n4; do
  hw=(--hw_decode=cuda --hw_decode_sessions=64 --decoders_per_file=${v#n})
  [[ $v == cpu ]] && hw=()
  "$bin/ssimd_server" --address=127.0.0.1:${port[$v]} --metrics_address=127.0.0.1:$((port[$v] + 10)) \
    --backend=gpu --files_root="$media" --log_level=warn "${hw[@]}" > "$w/server-$v.log" 2>&1 &
  pids+=($!)
done
trap 'kill ${pids[*]} $dmon 2>/dev/null' EXIT
sleep 5
ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
common=(--server_files --backend gpu --feature float_ssim --feature ssim --json -q)
for round in 1 2; do
  [[ $parts == *" one "* ]] || break
  for v in n1 n2 n3 n4 cpu; do
    mark "one $v round $round"
    s=$(date +%s%N)
    timeout 120 "$bin/ssimd-score" --ladder --server 127.0.0.1:${port[$v]} -r src_h264_long.mp4 \
      -d h264_1920x1080=h264_1920x1080_gop48_long.mp4 "${common[@]}" -o "$w/one-$v-$round" \
      > /dev/null || echo "one rendition $v failed" | tee -a "$out/one_rendition.txt"
    t=$(ms "$s")
    echo "round $round one rendition ($frames frames) $v: $t ms, $(( frames * 1000 / t )) frames/s" |
      tee -a "$out/one_rendition.txt"
  done
done

rungs=(-d h264_1920x1080=h264_1920x1080_gop48_long.mp4 -d h264_1280x720=h264_1280x720_long.mp4
       -d h264_960x540=h264_960x540_long.mp4 -d h264_640x360=h264_640x360_long.mp4
       -d h264_426x240=h264_426x240_long.mp4)
ladder() {  # server copies
  local v=$1 copies=$2 s p; local ps=()
  mark "ladders $v x$copies"
  s=$(date +%s%N)
  for ((c = 1; c <= copies; c++)); do
    timeout 300 "$bin/ssimd-score" --ladder --server 127.0.0.1:${port[$v]} -r src_h264_long.mp4 \
      "${rungs[@]}" "${common[@]}" -o "$w/ladder-$v-x$copies-$c" > /dev/null & ps+=($!)
  done
  for p in "${ps[@]}"; do wait "$p" || echo "ladder $v x$copies: a client failed" | tee -a "$out/ladders.txt"; done
  t=$(ms "$s")
  echo "$copies ladder(s) at once, 5 renditions x $frames frames, $v: $t ms," \
    "$(( copies * 5 * frames * 1000 / t )) rendition frames/s" | tee -a "$out/ladders.txt"
  mark "ladders $v x$copies done"
}
if [[ $parts == *" ladders "* ]]; then
  ladder cpu 1; ladder n1 1; ladder n2 1
  ladder cpu 4; ladder n1 4; ladder n2 4
fi
kill $dmon 2>/dev/null
python3 - "${port[cpu]}" "${port[n1]}" "${port[n2]}" "${port[n3]}" "${port[n4]}" <<'PY' > "$out/metrics.txt"
import sys, urllib.request
keep = ("ssimd_decoded_frames_total", "ssimd_decode_fallbacks_total", "ssimd_decode_sessions",
        "ssimd_upscales_total", "ssimd_upscale_fallbacks_total",
        "ssimd_device_exact_sum_fallbacks_total")
for name, port in zip(("cpu", "n1", "n2", "n3", "n4"), sys.argv[1:]):
    print("==", name)
    url = f"http://127.0.0.1:{int(port) + 10}/metrics"
    for line in urllib.request.urlopen(url).read().decode().splitlines():
        if line.startswith(keep):
            print(line)
PY
# Every value of every run against the CPU-decoding server's (its first one-rendition run and its
# single ladder), bit for bit.
python3 - "$w" <<'PY' | tee "$out/check.txt"
import glob, json, os, sys
w = sys.argv[1]
def load(path):
    return json.load(open(path))["frames"]
for d in sorted(glob.glob(f"{w}/one-*") + glob.glob(f"{w}/ladder-*")):
    ref_dir = f"{w}/one-cpu-1" if os.path.basename(d).startswith("one-") else f"{w}/ladder-cpu-x1-1"
    same = total = files = 0
    for f in glob.glob(f"{d}/*.json"):
        a, b = load(f), load(f"{ref_dir}/{os.path.basename(f)}")
        files += 1
        total += 2 * max(len(a), len(b))
        same += sum(x["metrics"][m] == y["metrics"][m]
                    for x, y in zip(a, b) for m in ("float_ssim", "ssim"))
    print(f"{os.path.basename(d)}: {files} renditions, {same} of {total} values equal to "
          f"{os.path.basename(ref_dir)}")
PY
kill ${pids[*]} 2>/dev/null; sleep 1
tar -czf "$out/server_logs.tgz" -C "$w" $(cd "$w" && ls server-*.log)
