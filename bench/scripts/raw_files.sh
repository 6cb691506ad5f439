#!/usr/bin/env bash
# Raw ScoreFiles end to end (docs/adr/0079): synthetic .y4m clips scored through ssimd-score
# --server_files by several servers, alternating, ROUNDS rounds, optionally against libvmaf's CLI
# on the same files. Replaces the per-run scripts once copied into results folders.
#
#   bench/scripts/raw_files.sh BUNDLE_DIR OUT_DIR LABEL=SERVER[:FLAGS]...
#
# BUNDLE_DIR: an unpacked `tools/bundle_gpu.sh --ladder` bundle (bin/ and lib/), or any folder
# whose bin/ holds ssimd-score and the servers; SERVER is a server binary in bin/ (ssimd_server,
# or an older build placed beside it, e.g. ssimd_server_baseline); FLAGS, space-separated (quote
# the argument), e.g. 'positional4_inflight16=ssimd_server:--max_frames_in_flight=16'.
#
# Settings (environment):
#   CLIPS    HEIGHT:WIDTH:FRAMES ... synthetic 8-bit 4:2:0 clips (a random luma plane rotated by
#            a random offset every frame, grey chroma; default "1080:1920:1200 2160:3840:300")
#   CUTS     frames of a short cut of every clip also scored (the fixed cost of a call; default
#            24; 0: none)
#   ROUNDS   default 3
#   FEATURE  default float_ssim
#   BACKEND  the servers' --backend (default auto)
#   VMAF     libvmaf's vmaf binary: also timed on the full clips, and every server's frames held
#            to its printed six decimals (default: none)
#   VMAF_THREADS  default: the machine's cores
#
# Writes OUT_DIR/raw.txt (times per round, server and clip; the frame checks) and the JSON reports.
set -eu
usage="usage: bench/scripts/raw_files.sh BUNDLE_DIR OUT_DIR LABEL=SERVER[:FLAGS]..."
bundle=$(cd "${1:?$usage}" && pwd)
out=$(mkdir -p "${2:?$usage}" && cd "$2" && pwd)
shift 2
[[ $# -gt 0 ]] || { echo "$usage" >&2; exit 2; }
[[ -d $bundle/lib ]] && export LD_LIBRARY_PATH=$bundle/lib
clips=${CLIPS:-1080:1920:1200 2160:3840:300}
cuts=${CUTS:-24}
feature=${FEATURE:-float_ssim}
files=$(mktemp -d)
trap 'rm -rf "$files"' EXIT
python3 - "$files" "$cuts" $clips <<'PY'
import os, random, sys
files, cuts = sys.argv[1], int(sys.argv[2])
def y4m(path, w, h, frames, seed):
    rnd = random.Random(seed)
    base = os.urandom(w * h)
    chroma = bytes([128]) * (w * h // 2)
    with open(path, "wb") as f:
        f.write(f"YUV4MPEG2 W{w} H{h} F24:1 Ip A1:1 C420jpeg\n".encode())
        for _ in range(frames):
            k = rnd.randrange(w * h)
            f.write(b"FRAME\n" + base[k:] + base[:k] + chroma)
for clip in sys.argv[3:]:
    h, w, n = map(int, clip.split(":"))
    for side, seed in (("ref", 1), ("dis", 2)):
        y4m(f"{files}/{side}{h}.y4m", w, h, n, seed)
        if cuts:
            y4m(f"{files}/{side}{h}s.y4m", w, h, cuts, seed)
PY
cat "$files"/*.y4m >/dev/null  # into the page cache for every contender alike
names=(); for clip in $clips; do names+=("${clip%%:*}"); done
tests=(); for n in "${names[@]}"; do [[ $cuts != 0 ]] && tests+=("${n}s"); tests+=("$n"); done
log=$out/raw.txt
echo "one thread reading a cached file: $(dd if="$files/ref${names[0]}.y4m" of=/dev/null bs=2M 2>&1 | tail -1)" | tee "$log"
ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
labels=()
for round in $(seq "${ROUNDS:-3}"); do
  for spec in "$@"; do
    label=${spec%%=*}; rest=${spec#*=}; server=${rest%%:*}
    flags=(); [[ $rest == *:* ]] && read -r -a flags <<<"${rest#*:}"
    [[ $round == 1 ]] && labels+=("$label")
    "$bundle/bin/$server" --address=127.0.0.1:50788 --metrics_address=127.0.0.1:0 \
      --backend="${BACKEND:-auto}" --files_root="$files" --log_level=warn "${flags[@]}" \
      >"$out/server_$label.log" 2>&1 &
    s_pid=$!; sleep 2
    for clip in "${tests[@]}"; do
      s=$(date +%s%N)
      "$bundle/bin/ssimd-score" -r "ref$clip.y4m" -d "dis$clip.y4m" --server_files \
        --server 127.0.0.1:50788 --feature "$feature" --json -o "$out/$label-$clip.json" -q
      echo "round $round $label $clip: $(ms "$s") ms" | tee -a "$log"
    done
    kill $s_pid; wait $s_pid || true
  done
  if [[ -n ${VMAF:-} ]]; then
    for clip in "${names[@]}"; do
      s=$(date +%s%N)
      "$VMAF" -r "$files/ref$clip.y4m" -d "$files/dis$clip.y4m" -n --feature "$feature" \
        --threads "${VMAF_THREADS:-$(nproc)}" -q --json -o "$out/libvmaf-$clip.json" >/dev/null
      echo "round $round libvmaf $clip: $(ms "$s") ms" | tee -a "$log"
    done
  fi
done
# Frames, backends and pooled mean per server; with VMAF, every frame against libvmaf's six
# decimals.
python3 - "$out" "$feature" "${labels[*]}" "${names[*]}" <<'PY' | tee -a "$log"
import json, os, sys
out, feature, labels, clips = sys.argv[1], sys.argv[2], sys.argv[3].split(), sys.argv[4].split()
for clip in clips:
    lib = None
    if os.path.exists(f"{out}/libvmaf-{clip}.json"):
        lib = [f["metrics"][feature] for f in json.load(open(f"{out}/libvmaf-{clip}.json"))["frames"]]
    for label in labels:
        d = json.load(open(f"{out}/{label}-{clip}.json"))
        ours = [f["metrics"][feature] for f in d["frames"]]
        line = (f"{clip} {label}: {len(ours)} frames, backend {d['ssimd']['frames_by_backend']}, "
                f"pooled mean {d['pooled_metrics'][feature]['mean']}")
        if lib is not None:
            same = len(ours) == len(lib) and all(f"{a:.6f}" == f"{b:.6f}" for a, b in zip(ours, lib))
            line += f", equal to libvmaf at its six decimals: {same}"
        print(line)
PY
