# Raw ScoreFiles end to end against libvmaf on the same files, one run, alternating, three rounds.
# Servers: ssimd_server_baseline (before read-ahead), ssimd_server_readahead1 (each input read
# ahead by one thread), ssimd_server (raw files read by position, four threads per side), the
# latter also with --max_frames_in_flight=16; then libvmaf's own CLI (`vmaf -n --feature
# float_ssim --threads 16`, built from source as a static binary). Each clip is also scored at
# 24 frames, whose time is mostly the fixed cost of a call (client start, connect, open).
# Usage: raw_vs_libvmaf.sh BUNDLE_DIR OUT_DIR
set -eu
B=$1; OUT=$2; mkdir -p "$OUT"; export LD_LIBRARY_PATH=$B/lib
D=/tmp/rawfiles; mkdir -p $D
python3 - <<'PY'
import os, random
def y4m(path, w, h, frames, seed):
    rnd = random.Random(seed)
    base = os.urandom(w * h)
    chroma = bytes([128]) * (w * h // 2)
    with open(path, "wb") as f:
        f.write(f"YUV4MPEG2 W{w} H{h} F24:1 Ip A1:1 C420jpeg\n".encode())
        for i in range(frames):
            k = rnd.randrange(w * h)
            f.write(b"FRAME\n" + base[k:] + base[:k] + chroma)
for w, h, n in ((1920, 1080, 1200), (3840, 2160, 300)):
    for side, seed in (("ref", 1), ("dis", 2)):
        y4m(f"/tmp/rawfiles/{side}{h}.y4m", w, h, n, seed)
        y4m(f"/tmp/rawfiles/{side}{h}s.y4m", w, h, 24, seed)
PY
cat $D/*.y4m > /dev/null  # into the page cache for every contender alike
echo "one thread reading a cached file: $(dd if=$D/ref1080.y4m of=/dev/null bs=2M 2>&1 | tail -1)"
ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
contenders=("baseline:ssimd_server_baseline:" "readahead1:ssimd_server_readahead1:"
            "positional4:ssimd_server:" "positional4_inflight16:ssimd_server:--max_frames_in_flight=16")
for round in 1 2 3; do
  for c in "${contenders[@]}"; do
    IFS=: read -r label server flags <<<"$c"
    $B/bin/$server --address=127.0.0.1:50788 --metrics_address=127.0.0.1:0 --backend=auto \
      --files_root=$D --log_level=warn $flags > $OUT/server_$label.log 2>&1 &
    S=$!; sleep 2
    for clip in 1080s 1080 2160s 2160; do
      s=$(date +%s%N)
      $B/bin/ssimd-score -r ref$clip.y4m -d dis$clip.y4m --server_files --server 127.0.0.1:50788 \
        --feature float_ssim --json -o $OUT/$label-$clip.json -q
      echo "round $round $label $clip: $(ms $s) ms"
    done
    kill $S; wait $S || true
  done
  for clip in 1080 2160; do
    s=$(date +%s%N)
    $B/bin/vmaf -r $D/ref$clip.y4m -d $D/dis$clip.y4m -n --feature float_ssim --threads 16 -q \
      --json -o $OUT/libvmaf-$clip.json > /dev/null
    echo "round $round libvmaf $clip: $(ms $s) ms"
  done
done
# Same scores: every frame of every server equals libvmaf's (which prints six decimals).
python3 - "$OUT" <<'PY'
import json, sys
out = sys.argv[1]
for clip in ("1080", "2160"):
    lib = [f["metrics"]["float_ssim"] for f in json.load(open(f"{out}/libvmaf-{clip}.json"))["frames"]]
    for label in ("baseline", "readahead1", "positional4", "positional4_inflight16"):
        d = json.load(open(f"{out}/{label}-{clip}.json"))
        ours = [f["metrics"]["float_ssim"] for f in d["frames"]]
        same = len(ours) == len(lib) and all(f"{a:.6f}" == f"{b:.6f}" for a, b in zip(ours, lib))
        print(f"{clip} {label}: {len(ours)} frames, backend {d['ssimd']['frames_by_backend']}, "
              f"equal to libvmaf at its six decimals: {same}")
PY
