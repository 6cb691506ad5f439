#!/usr/bin/env bash
# Metrics on a GPU ladder, on the GPU machine, from the repository's root: one stage per call on
# the same machine (what travels with one call is bounded; /tmp is kept between calls while the
# machine stays warm). The results go to bench/results/<run>/ with the command lines used.
#
#   ladder_metrics_on_gpu.sh tests BUNDLE_TAR_XZ OUT_DIR  unpacks the bundle into WORK and runs
#                                                         TESTS (default gpu_scorer_test)
#   ladder_metrics_on_gpu.sh ladders MEDIA_TAR OUT_DIR    9 renditions x 240 frames, NVDEC, GPU
#                                                         scoring: CHECKED on the GPU server
#                                                         against a CPU server, then each of
#                                                         SETS twice, alternating
#   ladder_metrics_on_gpu.sh pipeline - OUT_DIR           the same ladder against ffmpeg | vmaf
#                                                         (the media of the ladders stage)
#
# Settings (environment):
#   WORK      where the bundle and media go (default /tmp/ladder_metrics)
#   CHECKED   the features held to the CPU server's values (default "float_ssim ssim psnr
#             float_ms_ssim")
#   SETS      NAME=FEATURES;NAME=FEATURES... timed against each other (default float_ssim alone,
#             the four metrics with psnr of the luma, the four with psnr's chroma)
#   SERVER_FLAGS  more flags for every server of the ladders stage (e.g. --gpu_streams_per_device)
#   FEATURES, VMAF_FEATURES, SSIMD_VARIANTS, VMAF_MODEL, VMAF_MODEL_DIR  for the pipeline stage,
#             passed to bench/ladder_vs_pipeline.sh (defaults: CHECKED; CHECKED without ssim,
#             which upstream libvmaf lacks; NVDEC decoding)
#
# BUNDLE_TAR_XZ: SSIMD_LADDER_NO_SOURCES=1 SSIMD_BUNDLE_EXTRA_TARGETS=//engine/gpu:gpu_scorer_test
# tools/bundle_gpu.sh --ladder. MEDIA_TAR: tests/data/ladder/make_ladder.sh's renditions at 240
# frames with src_h264.mp4, src10_hevc.mkv, ladder.tsv and `frames`; ffx2.tar.xz (Debian 12's
# ffmpeg 5.1 with its libraries) and vmaf17g (upstream libvmaf's `vmaf`, f85a8536, printing
# %.17g). None of those is part of this repository.
set -u
stage=${1:?tests, ladders or pipeline}
out=$(mkdir -p "${3:?out dir}" && cd "$3" && pwd)
w=${WORK:-/tmp/ladder_metrics}
bundle=$w/bundle_ladder
checked=${CHECKED:-float_ssim ssim psnr float_ms_ssim}

if [[ $stage == tests ]]; then
  input=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
  rm -rf "$bundle" && mkdir -p "$w" && tar -xJf "$input" -C "$w"
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >"$out/device.txt"
  for t in ${TESTS:-gpu_scorer_test}; do
    timeout 420 "$bundle/run.sh" "$t" >"$out/$t.txt" 2>&1
    echo "$t rc=$?" | tee -a "$out/$t.txt"
    grep -E "PASSED|FAILED|SKIPPED|compared" "$out/$t.txt" | tail -n 8
  done
  exit 0
fi

[[ -x $bundle/bin/ssimd_server ]] || { echo "no bundle in $w: run the tests stage first"; exit 1; }

if [[ $stage == ladders ]]; then
  input=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
  rm -rf "$w/media" && mkdir -p "$w/media" && tar -xf "$input" -C "$w/media"
  eight="h264_1920x1080=h264_1920x1080.mp4,h264_1280x720=h264_1280x720.mp4"
  eight+=",h264_960x540=h264_960x540.mp4,h264_640x360=h264_640x360.mp4"
  eight+=",h264_426x240=h264_426x240.mp4,hevc_1280x720=hevc_1280x720.mkv"
  eight+=",vp9_960x540=vp9_960x540.webm"
  ten="hevc10_1920x1080=hevc10_1920x1080.mkv,hevc10_960x540=hevc10_960x540.mkv"
  export LADDERS="src_h264.mp4:$eight src10_hevc.mkv:$ten"
  export ONE_ROUNDS=0 TESTS="" CLIENT_BACKEND=auto
  export COMMON_SERVER_FLAGS="--hw_decode_sessions=64 ${SERVER_FLAGS:-}"
  run() {  # NAME FEATURES LADDER_RUNS CONFIG...
    local name=$1 features=$2 runs=$3; shift 3
    FEATURES="$features" LADDER_RUNS="$runs" \
      bash bench/scripts/ladder_throughput.sh "$bundle" "$w/media" "$out/$name" "$@"
  }
  gpu='dev=ssimd_server:--backend=gpu --hw_decode=cuda'
  run checked_vs_cpu "$checked" "dev:1 cpu:1" "$gpu" 'cpu=ssimd_server:--backend=cpu'
  sets=${SETS:-float_ssim=float_ssim;four_luma=float_ssim ssim psnr=enable_chroma=false float_ms_ssim;four=float_ssim ssim psnr float_ms_ssim}
  IFS=';' read -r -a named <<<"$sets"
  for round in 1 2; do
    for set in "${named[@]}"; do run "${set%%=*}_$round" "${set#*=}" "dev:1 dev:1" "$gpu"; done
  done
  for d in "$out"/*/; do
    sed "s|^|$(basename "$d"): |" "$d/ladders.txt" "$d/check.txt"
  done | tee "$out/summary.txt"
  exit 0
fi

if [[ $stage == pipeline ]]; then
  [[ -x $w/ffx2/ffmpeg ]] || tar -xJf "$w/media/ffx2.tar.xz" -C "$w"
  export LD_LIBRARY_PATH=$bundle/lib:$w/ffx2/lib
  mkdir -p "$w/sources"
  ff=("$w/ffx2/ffmpeg" -hide_banner -nostdin -loglevel error -y)
  "${ff[@]}" -i "$w/media/src_h264.mp4" -pix_fmt yuv420p -f yuv4mpegpipe "$w/sources/src.y4m"
  "${ff[@]}" -i "$w/media/src10_hevc.mkv" -pix_fmt yuv420p10le -strict -1 -f yuv4mpegpipe \
    "$w/sources/src10.y4m"
  "$w/ffx2/ffmpeg" -version | head -1 >"$out/versions.txt"
  SSIMD_BIN=$bundle/bin SSIMD_BACKEND=gpu VMAF_THREADS=2 FFMPEG=$w/ffx2/ffmpeg \
    SSIMD_VARIANTS="${SSIMD_VARIANTS:-gpu_decode=--hw_decode=cuda}" \
    FEATURES="${FEATURES:-$checked}" \
    VMAF_FEATURES="${VMAF_FEATURES:-$(echo " $checked " | sed 's/ ssim / /')}" \
    bash bench/ladder_vs_pipeline.sh "$w/media" "$w/sources" "$w/media/vmaf17g" "$w/pipeline" 2
  cp "$w/pipeline/times.txt" "$w/pipeline/check.txt" "$out/"
  tail -n 20 "$out/times.txt" "$out/check.txt"
  exit 0
fi
echo "unknown stage $stage" >&2
exit 2
