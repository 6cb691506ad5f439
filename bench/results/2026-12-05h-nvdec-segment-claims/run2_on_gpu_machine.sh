# On the GPU machine, from the repository's root: the same rendition and source as run 1 but four
# times as long (2304 frames, the same pan continued, encoded at a lower bitrate to travel), so
# that the decoders' start-up is a smaller part of the file: one rendition against its source end
# to end with 1 to 4 decoders per file (scores compared), then segmented NVDEC decoding (claims).
#   bash bench/results/2026-12-05h-nvdec-segment-claims/run2_on_gpu_machine.sh PACK MEDIA_DIR
set -u
# Results go straight to $OUT (what was written comes back if the call is cut short).
pack=$1; media=$(cd "$2" && pwd); w=/tmp/sc2; out=$OUT
rm -rf "$w"; mkdir -p "$w"
tar -xJf "$pack" -C "$w"
b=$w/bundle_ladder; bin=$b/bin
export LD_LIBRARY_PATH=$b/lib
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$out/versions.txt"
nvidia-smi dmon -s u -o T > "$out/dmon.txt" 2>&1 &
dmon=$!
declare -A port=([n1]=50902 [n2]=50903 [n3]=50904 [n4]=50905)
declare -A n=([n1]=1 [n2]=2 [n3]=3 [n4]=4)
pids=()
for v in n1 n2 n3 n4; do
  "$bin/ssimd_server" --address=127.0.0.1:${port[$v]} --metrics_address=127.0.0.1:$((port[$v] + 10)) \
    --backend=gpu --files_root="$media" --log_level=warn --hw_decode_sessions=40 --hw_decode=cuda \
    --decoders_per_file=${n[$v]} > "$w/server-$v.log" 2>&1 &
  pids+=($!)
done
trap 'kill ${pids[*]} $dmon 2>/dev/null' EXIT
sleep 5
ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
frames=$(cat "$media/frames")
common=(--server_files --backend gpu --feature float_ssim --feature ssim --json -q)
for round in 1 2; do
  for v in n1 n2 n3 n4; do
    echo "one $v round $round start $(date +%T)" >> "$out/marks.txt"
    s=$(date +%s%N)
    timeout 120 "$bin/ssimd-score" --ladder --server 127.0.0.1:${port[$v]} -r src_long.mp4 \
      -d h264_1920x1080=rend_long.mp4 "${common[@]}" -o "$w/one-$v-$round" > /dev/null ||
      echo "one rendition $v failed"
    t=$(ms "$s")
    echo "round $round one rendition ($frames frames) $v: $t ms, $(( frames * 1000 / t )) frames/s" | tee -a "$out/one_rendition.txt"
  done
done
# Every value of every run against the one-decoder server's first, bit for bit.
python3 - "$w" <<'PY' | tee -a "$out/one_rendition.txt"
import glob, json, os, sys
w = sys.argv[1]
ref_dir = f"{w}/one-n1-1"
for d in sorted(glob.glob(f"{w}/one-*")):
    same = total = files = 0
    for f in glob.glob(f"{d}/*.json"):
        a = json.load(open(f))["frames"]
        b = json.load(open(f"{ref_dir}/{os.path.basename(f)}"))["frames"]
        files += 1
        total += 2 * max(len(a), len(b))
        same += sum(x["metrics"][m] == y["metrics"][m]
                    for x, y in zip(a, b) for m in ("float_ssim", "ssim"))
    print(f"{os.path.basename(d)}: {files} renditions, {same} of {total} values equal to one-n1-1")
PY
echo "split start $(date +%T)" >> "$out/marks.txt"
(cd "$b" && timeout 240 ./run.sh decode_split_bench --file="$media/rend_long.mp4" --hw_decode=cuda \
  --on_device --rounds=1 --min_segment_packets=24 --decoders=1,2,3,4,7 --free_shares) \
  > "$out/split_long.txt" 2>&1
echo "split rc=$? end $(date +%T)" | tee -a "$out/marks.txt"
tail -n 14 "$out/split_long.txt"
kill $dmon 2>/dev/null
