# Fourth call: the same work (four clients, each one 1080p H.264 rendition against its H.264
# source, every picture decoded on NVDEC and scored on the GPU) sent to one server process and
# spread over four server processes on the same GPU, alternating, two rounds; scores compared.
# The server is the build of 26d857f (the decoding code of the final commit).
#   bash bench/results/2026-12-05f-nvdec-decoder-streams/run4_on_gpu_machine.sh PACK MEDIA_DIR
set -u
pack=$1; media=$(cd "$2" && pwd); w=/tmp/nv4; out=$w/r4
rm -rf "$w"; mkdir -p "$out"
tar -xJf "$pack" -C "$w"
b=$w/bundle_ladder; bin=$b/bin
export LD_LIBRARY_PATH=$b/lib
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/versions.txt"
nvidia-smi dmon -s u -o T > "$out/dmon4.txt" 2>&1 &
dmon=$!
pids=()
for i in 1 2 3 4; do
  "$bin/ssimd_server_old" --address=127.0.0.1:5090$i --metrics_address=127.0.0.1:5091$i \
    --backend=gpu --files_root="$media" --log_level=warn --hw_decode_sessions=40 --hw_decode=cuda \
    > "$out/server-$i.log" 2>&1 &
  pids+=($!)
done
trap 'kill ${pids[*]} $dmon 2>/dev/null' EXIT
sleep 8
ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
frames=$(cat "$media/frames")
common=(--server_files --backend gpu --feature float_ssim --feature ssim --json -q)
one() {  # one rendition against its source on server port $1, into $2
  timeout 120 "$bin/ssimd-score" --ladder --server 127.0.0.1:$1 -r src_h264.mp4 \
    -d h264_1920x1080=h264_1920x1080_gop48.mp4 "${common[@]}" -o "$2" > /dev/null || echo "client $2 failed"
}
one 50901 "$w/warm1"; one 50902 "$w/warm2"; one 50903 "$w/warm3"; one 50904 "$w/warm4"
for round in 1 2; do
  for layout in one_server four_servers; do
    echo "$layout round $round start $(date +%T)" >> "$out/marks4.txt"
    s=$(date +%s%N); cpids=()
    for i in 1 2 3 4; do
      port=50901; [[ $layout == four_servers ]] && port=5090$i
      one $port "$w/$layout-$round-$i" & cpids+=($!)
    done
    wait "${cpids[@]}"
    t=$(ms "$s")
    echo "round $round $layout: 4 clients x $frames frames in $t ms, $(( 4 * frames * 1000 / t )) rendition frames/s" | tee -a "$out/processes_vs_one.txt"
  done
done
python3 - "$w" <<'PY' | tee -a "$out/processes_vs_one.txt"
import glob, json, os, sys
w = sys.argv[1]
ref = json.load(open(f"{w}/warm1/h264_1920x1080.json"))["frames"]
same = total = 0
for d in sorted(glob.glob(f"{w}/*_server*-*")) + sorted(glob.glob(f"{w}/warm*")):
    a = json.load(open(f"{d}/h264_1920x1080.json"))["frames"]
    total += 2 * max(len(a), len(ref))
    same += sum(x["metrics"][m] == y["metrics"][m] for x, y in zip(a, ref) for m in ("float_ssim", "ssim"))
print(f"{same} of {total} values equal to the first warm-up run's")
PY
kill $dmon 2>/dev/null
cd "$w" && tar -czf "$OUT/results4.tgz" r4
