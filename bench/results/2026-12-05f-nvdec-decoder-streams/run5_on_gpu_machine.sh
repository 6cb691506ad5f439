# Fifth call: one process, n decoders at once, either sharing one file's segments (segmented
# decoding) or each decoding the whole file (--independent), pictures kept on the device and
# brought to the host. decode_split_bench of commit a9f5183.
#   bash bench/results/2026-12-05f-nvdec-decoder-streams/run5_on_gpu_machine.sh PACK MEDIA_DIR
set -u
pack=$1; media=$(cd "$2" && pwd); w=/tmp/nv5; out=$w/r5
rm -rf "$w"; mkdir -p "$out"
tar -xJf "$pack" -C "$w"
b=$w/bundle_ladder
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/versions.txt"
nvidia-smi dmon -s u -o T > "$out/dmon5.txt" 2>&1 &
dmon=$!
trap 'kill $dmon 2>/dev/null' EXIT
for where in device host; do
  flag=""; [[ $where == device ]] && flag=--on_device
  echo "independent $where start $(date +%T)" >> "$out/marks5.txt"
  (cd "$b" && timeout 200 ./run.sh decode_split_bench --file="$media/h264_1920x1080_gop48.mp4" \
    --hw_decode=cuda $flag --independent --decoders=1,2,3,4,7 --rounds=2 --pictures_ahead=96 \
    --min_segment_packets=24) > "$out/independent_$where.txt" 2>&1
  echo "independent $where rc=$?"; tail -n 13 "$out/independent_$where.txt"
done
kill $dmon 2>/dev/null
cd "$w" && tar -czf "$OUT/results5.tgz" r5
