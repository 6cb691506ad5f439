# Second call, same machine kind and programs (the streams build, 4cf9750): where several NVDEC
# decoders of one file lose their parallelism. (1) k processes at once, one decoder each (a CUDA context
# each), k = 1, 2, 3, 4, 7; (2) one process, segmented decoding with more pictures ahead than a
# segment holds; (3) longer segments.
#   bash bench/results/2026-12-05f-nvdec-decoder-streams/run2_on_gpu_machine.sh PACK MEDIA_DIR
set -u
pack=$1; media=$(cd "$2" && pwd); w=/tmp/nv2; out=$w/r2
rm -rf "$w"; mkdir -p "$out"
tar -xJf "$pack" -C "$w"
b=$w/bundle_ladder
rendition=$media/h264_1920x1080_gop48.mp4
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/versions.txt"
nvidia-smi dmon -s u -o T > "$out/dmon2.txt" 2>&1 &
dmon=$!
trap 'kill $dmon 2>/dev/null' EXIT
for k in 1 2 3 4 7; do
  echo "processes $k start $(date +%T)" >> "$out/marks2.txt"
  pids=()
  for i in $(seq 1 $k); do
    (cd "$b" && timeout 120 ./run.sh decode_split_bench --file="$rendition" --hw_decode=cuda \
      --on_device --decoders=1 --rounds=6) > "$out/proc_${k}_$i.txt" 2>&1 &
    pids+=($!)
  done
  wait "${pids[@]}"
  total=$(for i in $(seq 1 $k); do awk '$1 == "1" && $2 == "nvdec" {print $5}' "$out/proc_${k}_$i.txt"; done |
    awk '{s += $1} END {printf "%.0f", s}')
  echo "processes $k, one decoder each: sum of median fps $total" | tee -a "$out/processes.txt"
done
for ahead in 32 96; do
  for seg in 24 96 192; do
    echo "ahead $ahead seg $seg start $(date +%T)" >> "$out/marks2.txt"
    (cd "$b" && timeout 150 ./run.sh decode_split_bench --file="$rendition" --hw_decode=cuda \
      --on_device --decoders=1,2,3,4,7 --rounds=2 --pictures_ahead=$ahead \
      --min_segment_packets=$seg) > "$out/split_ahead${ahead}_seg$seg.txt" 2>&1
    echo "ahead $ahead seg>=$seg rc=$?"; tail -n 5 "$out/split_ahead${ahead}_seg$seg.txt"
  done
done
(cd "$b" && timeout 150 ./run.sh decode_split_bench --file="$media/src_h264.mp4" --hw_decode=cuda \
  --on_device --decoders=1,2,3,4,7 --rounds=2 --pictures_ahead=96 --min_segment_packets=24) \
  > "$out/split_source_ahead96.txt" 2>&1
echo "source ahead 96 rc=$?"; tail -n 5 "$out/split_source_ahead96.txt"
kill $dmon 2>/dev/null
cd "$w" && tar -czf "$OUT/results2.tgz" r2
