#!/usr/bin/env bash
# A whole ladder through ScoreLadder (CPU decoding, --backend given) against what a user runs
# today: each rendition decoded and upscaled by ffmpeg (`-vf scale=W:H:flags=bicubic`, in the
# source's pixel format) and piped into libvmaf's `vmaf -n`, all renditions at once. Same files,
# same features (float_ssim and ssim), same machine, alternating, ROUNDS rounds; prints the wall
# time of each, then holds every ssimd value to libvmaf's expected scores bit for bit and to the
# pipeline's own output (vmaf prints six decimals).
#
#   bench/ladder_vs_pipeline.sh LADDER_DIR SOURCES_DIR VMAF OUT_DIR [ROUNDS]
#
# SSIMD_VARIANTS times several server configurations in the same rounds, alternating with the
# pipeline: space-separated NAME=FLAGS entries, flags comma-separated, e.g.
#   SSIMD_VARIANTS="gpu_decode=--hw_decode=cuda cpu_decode=--upscale_on_scorer=auto"
# (default: one variant "ssimd" with no extra flags). Each gets its own server and output folder.
#
# Every variant after the first is also held to the first, value for value (e.g. GPU decoding
# against CPU decoding).
#
# LADDER_DIR: renditions, ladder.tsv and expected_scores.json (tests/data/ladder, or a longer
# ladder from its make_ladder.sh; without expected_scores.json, made with libvmaf's
# `--precision max`, that check is skipped); SOURCES_DIR: src.y4m and src10.y4m
# (tools/ladder_sources.sh).
# SSIMD_BIN: directory with ssimd_server and ssimd-score (default: bazel-bin's); SSIMD_BACKEND:
# cpu (default), gpu or auto; SSIMD_UPSCALE: the server's --upscale_on_scorer (default auto: the
# GPU upscales where it scores; never: libswscale on the CPU); VMAF_THREADS: --threads of each
# vmaf (default: cores / renditions, at least 1); FFMPEG: the ffmpeg command (default: ffmpeg).
# FEATURES: what ssimd is asked for, space-separated (default "float_ssim ssim"); VMAF_FEATURES:
# what each vmaf is asked for (default: FEATURES). The checks cover the metrics both report.
# VMAF_MODEL: the pipeline's vmaf also predicts with this model (its `-m`, e.g.
# version=vmaf_v0.6.1) instead of running with -n; ask ssimd for "vmaf" in FEATURES and give its
# servers the models with VMAF_MODEL_DIR (--vmaf_model_dir).
set -euo pipefail
usage="usage: bench/ladder_vs_pipeline.sh LADDER_DIR SOURCES_DIR VMAF OUT_DIR [ROUNDS]"
ladder=$(cd "${1:?$usage}" && pwd)
sources=$(cd "${2:?$usage}" && pwd)
vmaf=${3:?$usage}
out=$(mkdir -p "${4:?$usage}" && cd "$4" && pwd)
rounds=${5:-3}
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${SSIMD_BIN:-$here/bazel-bin}
server_bin=$bin/ssimd_server; [[ -x $server_bin ]] || server_bin=$bin/server/ssimd_server
score_bin=$bin/ssimd-score; [[ -x $score_bin ]] || score_bin=$bin/client/ssimd-score
ffmpeg=${FFMPEG:-ffmpeg}
backend=${SSIMD_BACKEND:-cpu}
upscale=${SSIMD_UPSCALE:-auto}
count=$(($(wc -l <"$ladder/ladder.tsv") - 1))
read -r -a features <<<"${FEATURES:-float_ssim ssim}"
read -r -a vmaf_features <<<"${VMAF_FEATURES:-${features[*]}}"
ssimd_feature_args=(); for f in "${features[@]}"; do ssimd_feature_args+=(--feature "$f"); done
vmaf_feature_args=(); for f in "${vmaf_features[@]}"; do vmaf_feature_args+=(--feature "$f"); done
threads=${VMAF_THREADS:-$(( $(nproc) / count > 0 ? $(nproc) / count : 1 ))}
vmaf_predict=(-n); [[ -n ${VMAF_MODEL:-} ]] && vmaf_predict=(-m "$VMAF_MODEL")
model_flags=(); [[ -n ${VMAF_MODEL_DIR:-} ]] && model_flags=(--vmaf_model_dir="$VMAF_MODEL_DIR")

# One folder below the server's files root: the renditions and both sources.
files=$out/files
mkdir -p "$files"
cp "$ladder"/*.mp4 "$ladder"/*.mkv "$ladder"/*.webm "$files/" 2>/dev/null || true
cp "$sources/src.y4m" "$sources/src10.y4m" "$files/"

read -r -a variants <<<"${SSIMD_VARIANTS:-ssimd=}"
declare -A ports
servers=()
trap 'kill "${servers[@]}" 2>/dev/null; wait "${servers[@]}" 2>/dev/null || true' EXIT
for variant in "${variants[@]}"; do
  vname=${variant%%=*}
  IFS=, read -r -a vflags <<<"${variant#*=}"
  ports[$vname]=$((50800 + RANDOM % 1000))
  "$server_bin" --address=127.0.0.1:${ports[$vname]} --metrics_address=127.0.0.1:0 \
    --backend="$backend" --upscale_on_scorer="$upscale" --files_root="$files" --log_level=warn \
    "${model_flags[@]}" "${vflags[@]}" >"$out/server-$vname.log" 2>&1 &
  servers+=($!)
done
sleep 2

ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }

pipeline() {  # all renditions at once, each ffmpeg | vmaf
  local dir=$1 pids=() name src w h file fmt scale depth
  mkdir -p "$dir"
  while IFS=$'\t' read -r name src w h file; do
    [[ $name == rendition ]] && continue
    depth=8; fmt=yuv420p
    [[ $src == src10.y4m ]] && { depth=10; fmt=yuv420p10le; }
    scale=()
    [[ $w != 1920 || $h != 1080 ]] && scale=(-vf scale=1920:1080:flags=bicubic)
    ( "$ffmpeg" -hide_banner -nostdin -loglevel error -i "$files/$file" "${scale[@]}" \
        -pix_fmt $fmt -strict -1 -f yuv4mpegpipe - |
      "$vmaf" -r "$files/$src" -d /dev/stdin "${vmaf_predict[@]}" "${vmaf_feature_args[@]}" \
        --threads "$threads" -q --json -o "$dir/$name.json" >/dev/null ) &
    pids+=($!)
  done <"$ladder/ladder.tsv"
  for p in "${pids[@]}"; do wait "$p"; done
}

scoreladder() {  # one ScoreLadder call per source, both at once
  local dir=$1 port=$2 args8=() args10=() name src w h file
  mkdir -p "$dir"
  while IFS=$'\t' read -r name src w h file; do
    [[ $name == rendition ]] && continue
    if [[ $src == src10.y4m ]]; then args10+=(-d "$name=$file"); else args8+=(-d "$name=$file"); fi
  done <"$ladder/ladder.tsv"
  local flags=(--server 127.0.0.1:$port --server_files --backend "$backend"
               "${ssimd_feature_args[@]}" --json -o "$dir" -q)
  "$score_bin" --ladder -r src.y4m "${args8[@]}" "${flags[@]}" >"$dir/table-8.txt" &
  local a=$!
  "$score_bin" --ladder -r src10.y4m "${args10[@]}" "${flags[@]}" >"$dir/table-10.txt" &
  local b=$!
  wait $a; wait $b
}

echo "$count renditions, $(nproc) cores, vmaf --threads $threads, ssimd --backend $backend" \
  "--upscale_on_scorer $upscale, variants: ${variants[*]}" | tee "$out/times.txt"
for round in $(seq "$rounds"); do
  s=$(date +%s%N); pipeline "$out/pipeline"; echo "round $round pipeline: $(ms "$s") ms" | tee -a "$out/times.txt"
  for variant in "${variants[@]}"; do
    vname=${variant%%=*}
    s=$(date +%s%N); scoreladder "$out/$vname" "${ports[$vname]}"
    echo "round $round ScoreLadder $vname: $(ms "$s") ms" | tee -a "$out/times.txt"
  done
done

first_variant=${variants[0]%%=*}
for variant in "${variants[@]}"; do
  vname=${variant%%=*}
  echo "== $vname" | tee -a "$out/check.txt"
  if [[ -f $ladder/expected_scores.json ]]; then
    python3 "$here/tools/bundle/ladder_parity_check.py" "$ladder/expected_scores.json" \
      "$out/$vname" | tee -a "$out/check.txt"
  else
    echo "no expected_scores.json in $ladder: libvmaf's full-precision check skipped" |
      tee -a "$out/check.txt"
  fi
  if [[ $vname != "$first_variant" ]]; then
    python3 - "$out" "$vname" "$first_variant" <<'PY' | tee -a "$out/check.txt"
import json, os, sys
out, variant, first = sys.argv[1:4]
same = total = 0
for name in sorted(os.listdir(f"{out}/pipeline")):
    ours = json.load(open(f"{out}/{variant}/{name}"))["frames"]
    theirs = json.load(open(f"{out}/{first}/{name}"))["frames"]
    total += sum(len(f["metrics"]) for f in (ours if len(ours) >= len(theirs) else theirs))
    for a, b in zip(ours, theirs):
        same += sum(a["metrics"][m] == b["metrics"].get(m) for m in a["metrics"])
print(f"{variant} against {first}, bit for bit: {same} of {total} values equal")
PY
  fi
  python3 - "$out" "$vname" <<'PY' | tee -a "$out/check.txt"
import json, os, sys
out, variant = sys.argv[1], sys.argv[2]
same = total = 0
exact = 0
by_metric = {}
for name in sorted(os.listdir(f"{out}/pipeline")):
    lib = json.load(open(f"{out}/pipeline/{name}"))["frames"]
    ours = json.load(open(f"{out}/{variant}/{name}"))["frames"]
    for a, b in zip(ours, lib):
        for m in sorted(set(a["metrics"]) & set(b["metrics"])):
            total += 1
            same += f"{a['metrics'][m]:.6f}" == f"{b['metrics'][m]:.6f}"
            exact += a["metrics"][m] == b["metrics"][m]
            counts = by_metric.setdefault(m, [0, 0])
            counts[0] += a["metrics"][m] == b["metrics"][m]
            counts[1] += 1
print(f"{variant} against the pipeline's vmaf output (six decimals): {same} of {total} values equal")
# Bit for bit only where the pipeline's vmaf prints every digit (%.17g).
print(f"{variant} against the pipeline's vmaf output, as printed: {exact} of {total} values equal "
      "(" + ", ".join(f"{m} {e}/{t}" for m, (e, t) in sorted(by_metric.items())) + ")")
PY
done
