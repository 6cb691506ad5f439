# Raw ScoreFiles end to end: three servers (before, with the chroma skip, with side-by-side reads), alternating.
set -e
B=/tmp/bundle_ladder; export LD_LIBRARY_PATH=$B/lib
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
for w, h, n in ((1920, 1080, 600), (3840, 2160, 150)):
    y4m(f"/tmp/rawfiles/ref{h}.y4m", w, h, n, 1)
    y4m(f"/tmp/rawfiles/dis{h}.y4m", w, h, n, 2)
PY
for round in 1 2 3; do
for server in ssimd_server_baseline ssimd_server_chroma_skip ssimd_server; do
$B/bin/$server --address=127.0.0.1:50788 --metrics_address=127.0.0.1:0 --backend=auto --files_root=$D --log_level=warn > /tmp/raw_server.log 2>&1 &
S=$!; sleep 2
for h in 1080 2160; do
  s=$(date +%s%N)
  $B/bin/ssimd-score -r ref$h.y4m -d dis$h.y4m --server_files --server 127.0.0.1:50788 --feature float_ssim --json -o /tmp/raw.json -q
  e=$(date +%s%N)
  n=$(python3 -c "import json;d=json.load(open('/tmp/raw.json'));print(len(d['frames']), d['ssimd']['frames_by_backend'], d['pooled_metrics']['float_ssim']['mean'])")
  echo "round $round $server ${h}p float_ssim: $n, $(( (e-s)/1000000 )) ms"
done
kill $S; wait $S || true
done; done
