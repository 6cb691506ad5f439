# On the GPU machine: segmented NVDEC decoding with segments back to back (new) against the
# drain-and-reset build (drain), and one 1080p H.264 rendition end to end with 1, 2 and 3
# decoders per file, scores compared.
set -u
here=$(cd "$(dirname "$0")" && pwd); media=$here/media; w=/tmp/nv; out=$w/r
rm -rf "$w"; mkdir -p "$out"
tar -xJf "$here/bundle_ladder.tar.xz" -C "$w"
b=$w/bundle_ladder; bin=$b/bin
export LD_LIBRARY_PATH=$b/lib
cp "$here/decode_split_bench_drain" "$bin/"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$out/versions.txt"
(cd "$b" && timeout 200 ./run.sh hw_decode_test) > "$out/hw_decode_test.txt" 2>&1; echo "hw_decode_test rc=$?"
tail -n 2 "$out/hw_decode_test.txt"
for seg in 24 96; do
  for v in new drain; do
    prog=decode_split_bench; [[ $v == drain ]] && prog=decode_split_bench_drain
    (cd "$b" && timeout 100 ./run.sh $prog --file="$media/src_h264.mp4" --hw_decode=cuda \
      --decoders=1,2,3,4,7 --rounds=2 --min_segment_packets=$seg) > "$out/split_${v}_$seg.txt" 2>&1
    echo "split $v seg>=$seg rc=$?"; grep -iE "decoder|fps|frames/s|equal|differ" "$out/split_${v}_$seg.txt" | tail -8
  done
done
declare -A port=([d1]=50901 [d2]=50902 [d3]=50903)
declare -A n=([d1]=1 [d2]=2 [d3]=3)
pids=()
for v in d1 d2 d3; do
  "$bin/ssimd_server" --address=127.0.0.1:${port[$v]} --metrics_address=127.0.0.1:$((port[$v] + 10)) \
    --backend=gpu --files_root="$media" --log_level=warn --hw_decode_sessions=40 --hw_decode=cuda \
    --decoders_per_file=${n[$v]} > "$out/server-$v.log" 2>&1 &
  pids+=($!)
done
trap 'kill ${pids[*]} 2>/dev/null' EXIT
sleep 3
ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
common=(--server_files --backend gpu --feature float_ssim --feature ssim --json -q)
for round in 1 2 3; do
  for v in d1 d2 d3; do
    s=$(date +%s%N)
    "$bin/ssimd-score" --ladder --server 127.0.0.1:${port[$v]} -r src_h264.mp4 \
      -d h264_1920x1080=h264_1920x1080.mp4 "${common[@]}" -o "$w/one-$v-$round" > /dev/null ||
      echo "one rendition $v failed"
    t=$(ms "$s")
    echo "round $round one rendition (240 frames) $v: $t ms, $(( 240000 / t )) frames/s" | tee -a "$out/one_rendition.txt"
  done
done
# Every value of every run against d1's first, bit for bit.
python3 - "$w" <<'PY' | tee -a "$out/one_rendition.txt"
import glob, json, os, sys
w = sys.argv[1]
ref_dir = f"{w}/one-d1-1"
for d in sorted(glob.glob(f"{w}/one-*")):
    same = total = files = 0
    for f in glob.glob(f"{d}/*.json"):
        a = json.load(open(f))["frames"]
        b = json.load(open(f"{ref_dir}/{os.path.basename(f)}"))["frames"]
        files += 1
        total += 2 * max(len(a), len(b))
        same += sum(x["metrics"][m] == y["metrics"][m]
                    for x, y in zip(a, b) for m in ("float_ssim", "ssim"))
    print(f"{os.path.basename(d)}: {files} renditions, {same} of {total} values equal to one-d1-1")
PY
for v in d1 d2 d3; do
  python3 - $((port[$v] + 10)) <<'PY' > "$out/metrics-$v.txt"
import sys, urllib.request
text = urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/metrics").read().decode()
for line in text.splitlines():
    if line.startswith(("ssimd_decoded_frames_total", "ssimd_decode_fallbacks_total",
                        "ssimd_device_decoded_planes_total")):
        print(line)
PY
done
tail -n 4 "$out"/metrics-*.txt
cd "$w" && tar -czf "$OUT/results.tgz" r
