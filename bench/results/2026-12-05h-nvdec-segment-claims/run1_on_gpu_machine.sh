# On the GPU machine, from the repository's root: segmented NVDEC decoding of one 1080p H.264
# rendition with claimed segments (new, this commit's decode_split_bench) against fixed shares
# (old, af8fac7), the free-shares and independent references, decoders on the engines with some
# on cores beside them (--cpu_decoders); then one rendition against its source end to end through
# ScoreLadder with 1 to 4 decoders per file (new) and 3 (old), scores compared.
#   bash bench/results/2026-12-05h-nvdec-segment-claims/run1_on_gpu_machine.sh PACK MEDIA_DIR
set -u
pack=$1; media=$(cd "$2" && pwd); w=/tmp/sc; out=$w/r
rm -rf "$w"; mkdir -p "$out"
tar -xJf "$pack" -C "$w"
b=$w/bundle_ladder; bin=$b/bin
export LD_LIBRARY_PATH=$b/lib
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$out/versions.txt"
nproc | tee -a "$out/versions.txt"
nvidia-smi dmon -s u -o T > "$out/dmon.txt" 2>&1 &
dmon=$!
(cd "$b" && timeout 240 ./run.sh hw_decode_test) > "$out/hw_decode_test.txt" 2>&1; echo "hw_decode_test rc=$?"
tail -n 2 "$out/hw_decode_test.txt"
rendition=$media/h264_1920x1080_gop48.mp4
split() {  # name program flags...
  local name=$1 prog=$2; shift 2
  echo "$name start $(date +%T)" >> "$out/marks.txt"
  (cd "$b" && timeout 200 ./run.sh "$prog" --file="$rendition" --hw_decode=cuda --on_device \
    --rounds=2 --min_segment_packets=24 "$@") > "$out/split_$name.txt" 2>&1
  echo "$name rc=$? end $(date +%T)" | tee -a "$out/marks.txt"
  tail -n 8 "$out/split_$name.txt"
}
split new decode_split_bench --decoders=1,2,3,4,7 --free_shares --independent
split old decode_split_bench_old --decoders=1,2,3,4,7
split new_ahead96 decode_split_bench --decoders=2,3,4,7 --pictures_ahead=96
split new_cpu1 decode_split_bench --decoders=2,3,4,5,8 --cpu_decoders=1
split new_cpu2 decode_split_bench --decoders=3,4,5,6,9 --cpu_decoders=2
split new_cpu4 decode_split_bench --decoders=5,6,7,8,11 --cpu_decoders=4
declare -A port=([o3]=50901 [n1]=50902 [n2]=50903 [n3]=50904 [n4]=50905)
declare -A n=([o3]=3 [n1]=1 [n2]=2 [n3]=3 [n4]=4)
pids=()
for v in o3 n1 n2 n3 n4; do
  server=$bin/ssimd_server; [[ $v == o* ]] && server=$bin/ssimd_server_old
  "$server" --address=127.0.0.1:${port[$v]} --metrics_address=127.0.0.1:$((port[$v] + 10)) \
    --backend=gpu --files_root="$media" --log_level=warn --hw_decode_sessions=40 --hw_decode=cuda \
    --decoders_per_file=${n[$v]} > "$out/server-$v.log" 2>&1 &
  pids+=($!)
done
trap 'kill ${pids[*]} $dmon 2>/dev/null' EXIT
sleep 5
ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
frames=$(cat "$media/frames")
common=(--server_files --backend gpu --feature float_ssim --feature ssim --json -q)
for round in 1 2; do
  for v in o3 n1 n2 n3 n4; do
    echo "one $v round $round start $(date +%T)" >> "$out/marks.txt"
    s=$(date +%s%N)
    timeout 120 "$bin/ssimd-score" --ladder --server 127.0.0.1:${port[$v]} -r src_h264.mp4 \
      -d h264_1920x1080=h264_1920x1080_gop48.mp4 "${common[@]}" -o "$w/one-$v-$round" > /dev/null ||
      echo "one rendition $v failed"
    t=$(ms "$s")
    echo "round $round one rendition ($frames frames) $v: $t ms, $(( frames * 1000 / t )) frames/s" | tee -a "$out/one_rendition.txt"
  done
done
# Every value of every run against the old server's first, bit for bit.
python3 - "$w" <<'PY' | tee -a "$out/one_rendition.txt"
import glob, json, os, sys
w = sys.argv[1]
ref_dir = f"{w}/one-o3-1"
for d in sorted(glob.glob(f"{w}/one-*")):
    same = total = files = 0
    for f in glob.glob(f"{d}/*.json"):
        a = json.load(open(f))["frames"]
        b = json.load(open(f"{ref_dir}/{os.path.basename(f)}"))["frames"]
        files += 1
        total += 2 * max(len(a), len(b))
        same += sum(x["metrics"][m] == y["metrics"][m]
                    for x, y in zip(a, b) for m in ("float_ssim", "ssim"))
    print(f"{os.path.basename(d)}: {files} renditions, {same} of {total} values equal to one-o3-1")
PY
kill $dmon 2>/dev/null
cd "$w" && tar -czf "$OUT/results.tgz" r
