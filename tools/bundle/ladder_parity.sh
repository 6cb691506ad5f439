#!/usr/bin/env bash
# The ladder test set scored through ScoreLadder (ssimd-score --ladder --server_files) and one
# rendition at a time through ScoreFiles (ssimd-score -r SRC -d FILE --server_files) on this
# machine's GPU and on its CPU (LADDER_PARITY_BACKENDS, default "gpu cpu"), with the default
# bicubic and with accurate_rnd, and held to libvmaf's expected scores bit for bit
# (ladder_parity_check.py). Runs from a bundle made by tools/bundle_gpu.sh --ladder; writes the
# reports, the tables and the server's log into OUT_DIR.
#
#   ladder/ladder_parity.sh OUT_DIR
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$(mkdir -p "${1:?usage: ladder_parity.sh OUT_DIR}" && cd "$1" && pwd)
export LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
data="$here/data"
port=50787

"$here/bin/ssimd_server" --address=127.0.0.1:$port --metrics_address=127.0.0.1:0 \
  --backend=auto --files_root="$data" --log_format=json --log_level=info >"$out/server.log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null; wait "$server" 2>/dev/null' EXIT
for _ in $(seq 100); do
  grep -q '"ssimd started"' "$out/server.log" && break
  sleep 0.1
done
grep '"ssimd started"' "$out/server.log" || { cat "$out/server.log"; exit 1; }

renditions8=(h264_1920x1080=h264_1920x1080.mp4 h264_1280x720=h264_1280x720.mp4
             h264_960x540=h264_960x540.mp4 h264_640x360=h264_640x360.mp4
             h264_426x240=h264_426x240.mp4 hevc_1280x720=hevc_1280x720.mkv
             vp9_960x540=vp9_960x540.webm)
renditions10=(hevc10_1920x1080=hevc10_1920x1080.mkv hevc10_960x540=hevc10_960x540.mkv)

status=0
for backend in ${LADDER_PARITY_BACKENDS:-gpu cpu}; do
  for rounding in bicubic accurate_rnd; do
    dir="$out/$backend-$rounding"
    files_dir="$out/$backend-$rounding-files"
    mkdir -p "$dir" "$files_dir"
    common=(--server 127.0.0.1:$port --server_files --backend "$backend" --feature float_ssim
            --feature ssim --json -q)
    [[ $rounding == accurate_rnd ]] && common+=(--accurate_rnd)
    flags=("${common[@]}" -o "$dir")
    for depth in 8 10; do
      if [[ $depth == 8 ]]; then source=src_first3.mkv; list=("${renditions8[@]}")
      else source=src10_first3.mkv; list=("${renditions10[@]}"); fi
      args=()
      for r in "${list[@]}"; do args+=(-d "$r"); done
      start=$(date +%s%N)
      "$here/bin/ssimd-score" --ladder -r "$source" "${args[@]}" "${flags[@]}" \
        >"$dir/table-$depth.txt" 2>"$dir/stderr-$depth.txt" || status=1
      echo "$backend $rounding $depth-bit: $(( ($(date +%s%N) - start) / 1000000 )) ms" \
        | tee -a "$out/times.txt"
      # The same renditions one at a time through ScoreFiles (ssimd-score -r SRC -d FILE).
      for r in "${list[@]}"; do
        "$here/bin/ssimd-score" -r "$source" -d "${r#*=}" "${common[@]}" \
          -o "$files_dir/${r%%=*}.json" 2>>"$files_dir/stderr.txt" || status=1
      done
    done
    expected=expected_scores.json
    [[ $rounding == accurate_rnd ]] && expected=expected_scores_accurate_rnd.json
    python3 "$here/ladder_parity_check.py" "$data/$expected" "$dir" "$files_dir" \
      | tee "$dir/check.txt" || status=1
  done
done
exit $status
