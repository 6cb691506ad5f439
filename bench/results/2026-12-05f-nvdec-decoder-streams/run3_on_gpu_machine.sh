# Third call: decoders spread over several CUDA contexts (--nvdec_contexts; 0 = one per engine),
# pictures copied into the primary context between contexts. Exactness on the device first, then
# segmented decoding of the rendition and of the source with one context and with one per engine,
# then one rendition against its source end to end (old build: 26d857f; new: 23b4ae5, reverted).
#   bash bench/results/2026-12-05f-nvdec-decoder-streams/run3_on_gpu_machine.sh PACK MEDIA_DIR
set -u
pack=$1; media=$(cd "$2" && pwd); w=/tmp/nv3; out=$w/r3
rm -rf "$w"; mkdir -p "$out"
tar -xJf "$pack" -C "$w"
b=$w/bundle_ladder; bin=$b/bin
export LD_LIBRARY_PATH=$b/lib
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/versions.txt"
nvidia-smi dmon -s u -o T > "$out/dmon3.txt" 2>&1 &
dmon=$!
(cd "$b" && timeout 240 ./run.sh hw_decode_test) > "$out/hw_decode_test.txt" 2>&1; echo "hw_decode_test rc=$?"
tail -n 2 "$out/hw_decode_test.txt"
(cd "$b" && timeout 120 ./run.sh gpu_decoded_planes_test) > "$out/gpu_decoded_planes_test.txt" 2>&1
echo "gpu_decoded_planes_test rc=$?"; tail -n 2 "$out/gpu_decoded_planes_test.txt"
for f in h264_1920x1080_gop48 src_h264; do
  for c in 1 0; do
    echo "split $f contexts $c start $(date +%T)" >> "$out/marks3.txt"
    (cd "$b" && timeout 150 ./run.sh decode_split_bench --file="$media/$f.mp4" --hw_decode=cuda \
      --on_device --nvdec_contexts=$c --decoders=1,2,3,4,7 --rounds=2 --pictures_ahead=96 \
      --min_segment_packets=24) > "$out/split_${f}_contexts$c.txt" 2>&1
    echo "split $f contexts $c rc=$?"; tail -n 5 "$out/split_${f}_contexts$c.txt"
  done
done
declare -A port=([o1]=50901 [n1]=50902 [n2]=50903 [n3]=50904 [n4]=50905 [c1n3]=50906)
declare -A n=([o1]=1 [n1]=1 [n2]=2 [n3]=3 [n4]=4 [c1n3]=3)
pids=()
for v in o1 n1 n2 n3 n4 c1n3; do
  server=$bin/ssimd_server; extra=(); [[ $v == o* ]] && server=$bin/ssimd_server_old
  [[ $v == c1* ]] && extra=(--nvdec_contexts=1)
  "$server" --address=127.0.0.1:${port[$v]} --metrics_address=127.0.0.1:$((port[$v] + 10)) \
    --backend=gpu --files_root="$media" --log_level=warn --hw_decode_sessions=40 --hw_decode=cuda \
    --decoders_per_file=${n[$v]} "${extra[@]}" > "$out/server-$v.log" 2>&1 &
  pids+=($!)
done
trap 'kill ${pids[*]} $dmon 2>/dev/null' EXIT
sleep 4
ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
frames=$(cat "$media/frames")
common=(--server_files --backend gpu --feature float_ssim --feature ssim --json -q)
for round in 1 2 3; do
  for v in o1 n1 n2 n3 n4 c1n3; do
    echo "one $v round $round start $(date +%T)" >> "$out/marks3.txt"
    s=$(date +%s%N)
    timeout 120 "$bin/ssimd-score" --ladder --server 127.0.0.1:${port[$v]} -r src_h264.mp4 \
      -d h264_1920x1080=h264_1920x1080_gop48.mp4 "${common[@]}" -o "$w/one-$v-$round" > /dev/null ||
      echo "one rendition $v failed"
    t=$(ms "$s")
    echo "round $round one rendition ($frames frames) $v: $t ms, $(( frames * 1000 / t )) frames/s" | tee -a "$out/one_rendition.txt"
  done
done
python3 - "$w" <<'PY' | tee -a "$out/one_rendition.txt"
import glob, json, os, sys
w = sys.argv[1]
ref_dir = f"{w}/one-o1-1"
for d in sorted(glob.glob(f"{w}/one-*")):
    same = total = files = 0
    for f in glob.glob(f"{d}/*.json"):
        a = json.load(open(f))["frames"]
        b = json.load(open(f"{ref_dir}/{os.path.basename(f)}"))["frames"]
        files += 1
        total += 2 * max(len(a), len(b))
        same += sum(x["metrics"][m] == y["metrics"][m]
                    for x, y in zip(a, b) for m in ("float_ssim", "ssim"))
    print(f"{os.path.basename(d)}: {files} renditions, {same} of {total} values equal to one-o1-1")
PY
for v in o1 n1 n2 n3 n4 c1n3; do
  python3 - $((port[$v] + 10)) <<'PY' > "$out/metrics-$v.txt"
import sys, urllib.request
text = urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/metrics").read().decode()
for line in text.splitlines():
    if line.startswith(("ssimd_decoded_frames_total", "ssimd_decode_fallbacks_total",
                        "ssimd_device_decoded_planes_total")):
        print(line)
PY
done
tail -n 3 "$out"/metrics-*.txt
nvidia-smi --query-gpu=memory.used --format=csv,noheader | tee "$out/memory_used_with_servers.txt"
kill $dmon 2>/dev/null
cd "$w" && tar -czf "$OUT/results3.tgz" r3
