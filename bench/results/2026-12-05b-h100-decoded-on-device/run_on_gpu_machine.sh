# On the GPU machine, from the source tree's root: NVDEC's pictures scored where they lie
# (docs/adr/0083) against the same pictures brought through the host and against CPU decoding.
#   1. hw_decode_test and gpu_decoded_planes_test;
#   2. a ladder (6 renditions of 240 frames, 8-bit, against an H.264 source) on four servers:
#      dev (--hw_decode=cuda), host (--decoded_on_device=false), cpu (no --hw_decode) and dev4
#      (dev with --decoders_per_file=4), two rounds, every value compared across servers;
#   3. one 1080p H.264 rendition against the source on each server;
#   4. four ladders at once on dev, host and cpu, with nvidia-smi dmon sampling the decoders;
#   5. decode_split_bench on the source: NVDEC with 1, 2, 4, 7 decoders (segments of at least 24
#      and of at least 96 pictures).
# Usage: run_on_gpu_machine.sh BUNDLE.tar.xz MEDIA_DIR OUT_DIR (OUT_DIR/results.tgz: every file)
set -u
bundle=$1; media=$(cd "$2" && pwd); w=/tmp/dod; out=$w/results
final=$(mkdir -p "$3" && cd "$3" && pwd)
rm -rf "$w"; mkdir -p "$w" "$out"
tar -xJf "$bundle" -C "$w"
b=$w/bundle_ladder; bin=$b/bin
export LD_LIBRARY_PATH=$b/lib
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$out/versions.txt"

(cd "$b" && timeout 240 ./run.sh hw_decode_test) > "$out/hw_decode_test.txt" 2>&1 ||
  echo "exit $?" >> "$out/hw_decode_test.txt"
(cd "$b" && timeout 120 ./run.sh gpu_decoded_planes_test) > "$out/gpu_decoded_planes_test.txt" 2>&1 ||
  echo "exit $?" >> "$out/gpu_decoded_planes_test.txt"
tail -n 3 "$out/hw_decode_test.txt" "$out/gpu_decoded_planes_test.txt"

declare -A port=([dev]=50901 [host]=50902 [cpu]=50903 [dev4]=50904)
declare -A flags=([dev]="--hw_decode=cuda" [host]="--hw_decode=cuda --decoded_on_device=false"
                  [cpu]="" [dev4]="--hw_decode=cuda --decoders_per_file=4")
pids=()
for v in dev host cpu dev4; do
  # shellcheck disable=SC2086
  "$bin/ssimd_server" --address=127.0.0.1:${port[$v]} --metrics_address=127.0.0.1:$((port[$v] + 10)) \
    --backend=gpu --files_root="$media" --log_level=warn --hw_decode_sessions=40 ${flags[$v]} \
    > "$out/server-$v.log" 2>&1 &
  pids+=($!)
done
trap 'kill ${pids[*]} 2>/dev/null' EXIT
sleep 3
ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
common=(--server_files --backend gpu --feature float_ssim --feature ssim --json -q)
ladder=(-d h264_1920x1080=h264_1920x1080.mp4 -d h264_1280x720=h264_1280x720.mp4
        -d h264_960x540=h264_960x540.mp4 -d h264_640x360=h264_640x360.mp4
        -d h264_426x240=h264_426x240.mp4 -d hevc_1280x720=hevc_1280x720.mkv)
for round in 1 2; do
  for v in dev host cpu dev4; do
    s=$(date +%s%N)
    "$bin/ssimd-score" --ladder --server 127.0.0.1:${port[$v]} -r src_h264.mp4 "${ladder[@]}" \
      "${common[@]}" -o "$w/ladder-$v-$round" > /dev/null || echo "ladder $v failed"
    echo "round $round ladder (6 renditions x 240 frames) $v: $(ms "$s") ms" | tee -a "$out/ladder.txt"
  done
done
for round in 1 2; do
  for v in dev host cpu dev4; do
    s=$(date +%s%N)
    "$bin/ssimd-score" --ladder --server 127.0.0.1:${port[$v]} -r src_h264.mp4 \
      -d h264_1920x1080=h264_1920x1080.mp4 "${common[@]}" -o "$w/one-$v-$round" > /dev/null ||
      echo "one rendition $v failed"
    t=$(ms "$s")
    echo "round $round one rendition (240 frames) $v: $t ms, $(( 240000 / t )) frames/s" |
      tee -a "$out/one_rendition.txt"
  done
done
for v in dev host cpu; do
  nvidia-smi dmon -s u -d 1 > "$out/dmon_four_ladders_$v.txt" 2>&1 & dmon=$!
  s=$(date +%s%N); copies=()
  for copy in 1 2 3 4; do
    "$bin/ssimd-score" --ladder --server 127.0.0.1:${port[$v]} -r src_h264.mp4 "${ladder[@]}" \
      "${common[@]}" -o "$w/four-$v-$copy" > /dev/null & copies+=($!)
  done
  for p in "${copies[@]}"; do wait "$p"; done
  echo "four ladders at once (4 x 6 renditions x 240 frames) $v: $(ms "$s") ms" |
    tee -a "$out/four_ladders.txt"
  kill $dmon
done
for v in dev host cpu dev4; do
  python3 - $((port[$v] + 10)) <<'PY' > "$out/metrics-$v.txt"
import sys, urllib.request
text = urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/metrics").read().decode()
for line in text.splitlines():
    if line.startswith(("ssimd_decoded_frames_total", "ssimd_decode_fallbacks_total",
                        "ssimd_device_decoded_planes_total", "ssimd_upscales_total",
                        "ssimd_upscale_fallbacks_total", "ssimd_device_exact_sum_fallbacks_total")):
        print(line)
PY
done
# Every value of every run against the cpu server's first ladder, bit for bit.
python3 - "$w" <<'PY' | tee "$out/check.txt"
import glob, json, os, sys
w = sys.argv[1]
ref_dir = f"{w}/ladder-cpu-1"
for d in sorted(glob.glob(f"{w}/ladder-*") + glob.glob(f"{w}/one-*") + glob.glob(f"{w}/four-*")):
    same = total = files = 0
    for f in glob.glob(f"{d}/*.json"):
        a = json.load(open(f))["frames"]
        b = json.load(open(f"{ref_dir}/{os.path.basename(f)}"))["frames"]
        files += 1
        total += 2 * max(len(a), len(b))
        same += sum(x["metrics"][m] == y["metrics"][m]
                    for x, y in zip(a, b) for m in ("float_ssim", "ssim"))
    print(f"{os.path.basename(d)}: {files} renditions, {same} of {total} values equal to ladder-cpu-1")
PY
for packets in 24 96; do
  (cd "$b" && timeout 100 ./run.sh decode_split_bench --file="$media/src_h264.mp4" --hw_decode=cuda \
    --decoders=1,2,4,7 --rounds=2 --min_segment_packets=$packets) \
    > "$out/decode_split_nvdec_$packets.txt" 2>&1 || echo "exit $?" >> "$out/decode_split_nvdec_$packets.txt"
done
tail -n 6 "$out"/decode_split_*.txt "$out/ladder.txt" "$out/one_rendition.txt" "$out"/metrics-*.txt
tar -czf "$final/results.tgz" -C "$out" .
