# On the GPU machine, from the source tree's root: joins the pack's parts (bundle_ladder.tar.xz from
# tools/bundle_gpu.sh --ladder, ffextra.tar.xz: Debian's ffmpeg with the libraries the bundle lacks,
# vmaf, the 240-frame ladder's renditions, the photo and the sources' sha256), rebuilds the sources
# with tests/data/ladder/make_ladder.sh, then measures:
#   1. hw_decode_test: NVDEC's pictures against the CPU decoder's (the checked-in ladder);
#   2. bench/ladder_vs_pipeline.sh, GPU scoring, two servers: --hw_decode=cuda and CPU decoding,
#      alternating with the ffmpeg | vmaf pipeline, three rounds, nvidia-smi dmon recording;
#   3. one 1080p H.264 rendition against its source, end to end, on each server;
#   4. four ladders at once on each server, nvidia-smi dmon recording decoder use.
# Usage: [ROUNDS=3] run_on_gpu_machine.sh PARTS_DIR OUT_DIR
set -eu
parts=$1; out=$(mkdir -p "$2" && cd "$2" && pwd); w=/tmp/ladderbench
rm -rf "$w"; mkdir -p "$w"
cat "$parts"/part-* | tar -x -C "$w"
tar -xJf "$w/bundle_ladder.tar.xz" -C "$w"
tar -xJf "$w/ffextra.tar.xz" -C "$w"
export LD_LIBRARY_PATH=$w/bundle_ladder/lib:$w/ffextra/lib
chmod +x "$w"/bundle_ladder/bin/* "$w/ffextra/ffmpeg" "$w/vmaf"
bin=$w/bundle_ladder/bin
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$out/versions.txt"
"$w/ffextra/ffmpeg" -version | head -1 >> "$out/versions.txt"

s=$(date +%s)
PATH=$w/ffextra:$PATH SOURCES_ONLY=1 bash tests/data/ladder/make_ladder.sh "$w/sources" \
  "$w/photo.jpg" 240
(cd "$w/sources" && sha256sum -c "$w/sources.sha256") > "$out/sources_check.txt" 2>&1
echo "sources rebuilt in $(( $(date +%s) - s )) s" >> "$out/sources_check.txt"

(cd "$w/bundle_ladder" && timeout 300 ./run.sh hw_decode_test) > "$out/hw_decode_test.txt" 2>&1 ||
  echo "exit $?" >> "$out/hw_decode_test.txt"

nvidia-smi dmon -s u -d 1 > "$out/dmon_ladder_vs_pipeline.txt" 2>&1 & dmon=$!
SSIMD_BIN=$bin SSIMD_BACKEND=gpu VMAF_THREADS=2 FFMPEG=$w/ffextra/ffmpeg \
  SSIMD_VARIANTS="gpu_decode=--hw_decode=cuda cpu_decode=" \
  bash bench/ladder_vs_pipeline.sh "$w/ladder" "$w/sources" "$w/vmaf" "$w/lvp" "${ROUNDS:-3}" \
  > "$out/ladder_vs_pipeline.txt" 2>&1 || echo "exit $?" >> "$out/ladder_vs_pipeline.txt"
kill $dmon
cp "$w/lvp/times.txt" "$w/lvp/check.txt" "$out/" 2>/dev/null || true

# Servers of their own for 3 and 4, on the files ladder_vs_pipeline.sh gathered.
files=$w/lvp/files
declare -A port=([gpu_decode]=50901 [cpu_decode]=50902) metrics=([gpu_decode]=50911 [cpu_decode]=50912)
"$bin/ssimd_server" --address=127.0.0.1:50901 --metrics_address=127.0.0.1:50911 --backend=gpu \
  --files_root="$files" --log_level=warn --hw_decode=cuda > "$out/server-gpu_decode.log" 2>&1 &
a=$!
"$bin/ssimd_server" --address=127.0.0.1:50902 --metrics_address=127.0.0.1:50912 --backend=gpu \
  --files_root="$files" --log_level=warn > "$out/server-cpu_decode.log" 2>&1 &
b=$!
trap 'kill $a $b 2>/dev/null' EXIT
sleep 2
ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
flags=(--server_files --backend gpu --feature float_ssim --feature ssim --json -q)
for round in $(seq "${ROUNDS:-3}"); do
  for v in gpu_decode cpu_decode; do
    s=$(date +%s%N)
    "$bin/ssimd-score" --ladder --server 127.0.0.1:${port[$v]} -r src.y4m \
      -d h264_1080=h264_1920x1080.mp4 "${flags[@]}" -o "$w/one-$v" > /dev/null
    t=$(ms "$s"); echo "round $round one rendition (240 frames) $v: $t ms, $(( 240000 / t )) frames/s" |
      tee -a "$out/one_rendition.txt"
  done
done
ladder_args() {  # the ssimd-score arguments of the 8-bit or the 10-bit part of the ladder
  local want=$1 name src width height file
  while IFS=$'\t' read -r name src width height file; do
    [[ $name == rendition || $src != "$want" ]] && continue
    printf -- '-d\n%s=%s\n' "$name" "$file"
  done < "$w/ladder/ladder.tsv"
}
mapfile -t args8 < <(ladder_args src.y4m)
mapfile -t args10 < <(ladder_args src10.y4m)
for v in gpu_decode cpu_decode; do
  nvidia-smi dmon -s u -d 1 > "$out/dmon_four_ladders_$v.txt" 2>&1 & dmon=$!
  s=$(date +%s%N); pids=()
  for copy in 1 2 3 4; do
    "$bin/ssimd-score" --ladder --server 127.0.0.1:${port[$v]} -r src.y4m "${args8[@]}" \
      "${flags[@]}" -o "$w/four-$v-$copy-8" > /dev/null & pids+=($!)
    "$bin/ssimd-score" --ladder --server 127.0.0.1:${port[$v]} -r src10.y4m "${args10[@]}" \
      "${flags[@]}" -o "$w/four-$v-$copy-10" > /dev/null & pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p"; done
  t=$(ms "$s"); kill $dmon
  echo "four ladders at once (4 x 9 renditions x 240 frames) $v: $t ms" | tee -a "$out/four_ladders.txt"
  python3 - "${metrics[$v]}" <<'PY' | tee -a "$out/metrics-$v.txt"
import sys, urllib.request
text = urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/metrics").read().decode()
for line in text.splitlines():
    if line.startswith(("ssimd_decoded_frames_total", "ssimd_decode_fallbacks_total",
                        "ssimd_decode_sessions", "ssimd_upscales_total",
                        "ssimd_upscale_fallbacks_total", "ssimd_device_exact_sum_fallbacks_total")):
        print(line)
PY
done
# Every copy's values equal the first ladder's (and so the checks above), bit for bit.
python3 - "$w" <<'PY' | tee -a "$out/four_ladders.txt"
import glob, json, os, sys
w = sys.argv[1]
same = total = 0
for d in glob.glob(f"{w}/four-*"):
    for f in glob.glob(f"{d}/*.json"):
        ref = f"{w}/lvp/cpu_decode/{os.path.basename(f)}"
        if not os.path.exists(ref):
            continue
        a = json.load(open(f))["frames"]; b = json.load(open(ref))["frames"]
        total += 2 * max(len(a), len(b))
        same += sum(x["metrics"][m] == y["metrics"][m] for x, y in zip(a, b) for m in ("float_ssim", "ssim"))
print(f"four-ladder runs against the cpu_decode ladder, bit for bit: {same} of {total} values equal")
PY
