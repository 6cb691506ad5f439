#!/usr/bin/env bash
# On a GPU machine: unpacks what travelled for a ladder-against-pipeline run and runs
# bench/ladder_vs_pipeline.sh for every build and scoring backend, alternating with the
# ffmpeg | vmaf pipeline. Replaces the per-run scripts once copied into results folders.
#
#   bench/scripts/ladder_vs_pipeline_pack.sh PACK.tar OUT_DIR
#
# PACK.tar holds bundle_ladder.tar.xz (`tools/bundle_gpu.sh --ladder`), ffextra.tar.xz (Debian's
# ffmpeg with the libraries the bundle lacks, in ffextra/), the ladder's sources as FFV1
# (src_ffv1.mkv, src10_ffv1.mkv), extra/vmaf (libvmaf's CLI) and any older servers to compare.
#
# Settings (environment):
#   BUILDS        NAME=DIR ... the servers timed: DIR, relative to the unpacked pack, holds
#                 ssimd_server (ssimd-score is the bundle's); default "ssimd=bundle_ladder/bin",
#                 e.g. "one_round=old rounds=bundle_ladder/bin"
#   BACKENDS      scoring backends, one ladder_vs_pipeline.sh run each (default "gpu cpu")
#   ROUNDS        default 3
#   VMAF_THREADS  --threads of each vmaf (default 2)
#
# Writes OUT_DIR/ladder-BACKEND-NAME.txt (times and checks of each run) and versions.txt.
set -eu
usage="usage: bench/scripts/ladder_vs_pipeline_pack.sh PACK.tar OUT_DIR"
pack=${1:?$usage}
out=$(mkdir -p "${2:?$usage}" && cd "$2" && pwd)
repo=$(cd "$(dirname "$0")/../.." && pwd)
w=$(mktemp -d)
tar -xf "$pack" -C "$w"
tar -xJf "$w/bundle_ladder.tar.xz" -C "$w"
tar -xJf "$w/ffextra.tar.xz" -C "$w"
export LD_LIBRARY_PATH=$w/bundle_ladder/lib:$w/ffextra/lib
cp "$repo/tests/data/ladder/ladder.tsv" "$w/bundle_ladder/data/"
cp "$w"/extra/* "$w/bundle_ladder/bin/"
chmod +x "$w"/bundle_ladder/bin/* "$w/ffextra/ffmpeg"
ff=("$w/ffextra/ffmpeg" -hide_banner -nostdin -loglevel error -y)
mkdir -p "$w/sources"
"${ff[@]}" -i "$w/src_ffv1.mkv" -pix_fmt yuv420p -f yuv4mpegpipe "$w/sources/src.y4m"
"${ff[@]}" -i "$w/src10_ffv1.mkv" -pix_fmt yuv420p10le -strict -1 -f yuv4mpegpipe \
  "$w/sources/src10.y4m"
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; "$w/ffextra/ffmpeg" -version |
    head -1; } >"$out/versions.txt" 2>&1
for backend in ${BACKENDS:-gpu cpu}; do
  for build in ${BUILDS:-ssimd=bundle_ladder/bin}; do
    name=${build%%=*}; dir=$w/${build#*=}
    if [[ ! -x $dir/ssimd-score ]]; then
      mkdir -p "$w/builds/$name"
      cp "$dir/ssimd_server" "$w/bundle_ladder/bin/ssimd-score" "$w/builds/$name/"
      dir=$w/builds/$name
    fi
    chmod +x "$dir"/*
    SSIMD_BIN=$dir SSIMD_BACKEND=$backend VMAF_THREADS=${VMAF_THREADS:-2} \
      FFMPEG=$w/ffextra/ffmpeg bash "$repo/bench/ladder_vs_pipeline.sh" "$w/bundle_ladder/data" \
      "$w/sources" "$w/bundle_ladder/bin/vmaf" "$w/out-$backend-$name" "${ROUNDS:-3}" \
      >"$out/ladder-$backend-$name.txt" 2>&1 || echo "exit $?" >>"$out/ladder-$backend-$name.txt"
  done
done
rm -rf "$w"
