#!/usr/bin/env bash
# On the GPU machine, from the repository's root, in two calls (what travels with one call is
# bounded, so the bundle goes first and stays in /tmp for the second):
#
#   run_on_gpu_machine.sh tests BUNDLE_TAR_XZ OUT_DIR   unpacks the bundle into /tmp/four_metrics
#                                                       and runs the GPU tests
#   run_on_gpu_machine.sh ladders MEDIA_TAR OUT_DIR     one 9-rendition ladder at 240 frames
#   run_on_gpu_machine.sh unpack BUNDLE_TAR_XZ OUT_DIR  the bundle into /tmp/four_metrics alone
#   run_on_gpu_machine.sh pipeline MEDIA_TAR OUT_DIR    the same ladder against ffmpeg | vmaf
#
# The pipeline: bench/ladder_vs_pipeline.sh, every rendition decoded and upscaled by Debian's
# ffmpeg 5.1 and piped into upstream libvmaf's `vmaf` (Netflix/vmaf f85a8536, -Denable_float=true,
# built on the development machine) with float_ssim, psnr (luma) and float_ms_ssim, all nine at
# once, against ScoreLadder with the four metrics (upstream has no integer ssim: the pipeline does
# one feature less). MEDIA_TAR then also holds ladder.tsv and ffx2/ (ffmpeg, vmaf and the
# libraries ffmpeg needs beyond the bundle's).
#
# The ladders: NVDEC decoding and GPU scoring, with float_ssim alone, with float_ssim + ssim and
# with the four metrics (float_ssim, ssim, psnr of the luma, float_ms_ssim), alternating, the four
# metrics also once on a CPU server whose values every GPU value is held to.
#
# BUNDLE_TAR_XZ: SSIMD_LADDER_NO_SOURCES=1 SSIMD_BUNDLE_EXTRA_TARGETS=//engine/gpu:gpu_scorer_test
# tools/bundle_gpu.sh --ladder. MEDIA_TAR: tests/data/ladder/make_ladder.sh's renditions at 240
# frames, its src.y4m encoded as src_h264.mp4 and src10.y4m as src10_hevc.mkv, and `frames`.
set -u
stage=${1:?tests or ladders}
input=$(cd "$(dirname "${2:?input}")" && pwd)/$(basename "$2")
out=$(mkdir -p "${3:?out dir}" && cd "$3" && pwd)
w=/tmp/four_metrics
bundle=$w/bundle_ladder

if [[ $stage == tests ]]; then
  rm -rf "$w" && mkdir -p "$w" && tar -xJf "$input" -C "$w"
  # The checked-in reference subset (tests/data/reference) is read relative to here.
  timeout 420 "$bundle/run.sh" gpu_scorer_test >"$out/gpu_scorer_test.txt" 2>&1
  echo "gpu_scorer_test rc=$?" | tee -a "$out/gpu_scorer_test.txt"
  tail -n 4 "$out/gpu_scorer_test.txt"
  exit 0
fi

if [[ $stage == unpack ]]; then
  rm -rf "$w" && mkdir -p "$w" && tar -xJf "$input" -C "$w" && echo "unpacked into $w"
  exit 0
fi

[[ -x $bundle/bin/ssimd_server ]] || { echo "no bundle in $w: run the tests stage first"; exit 1; }
rm -rf "$w/media" && mkdir -p "$w/media" && tar -xf "$input" -C "$w/media"

if [[ $stage == pipeline ]]; then
  tar -xJf "$w/media/ffx2.tar.xz" -C "$w"
  export LD_LIBRARY_PATH=$bundle/lib:$w/ffx2/lib
  mkdir -p "$w/sources"
  ff=("$w/ffx2/ffmpeg" -hide_banner -nostdin -loglevel error -y)
  "${ff[@]}" -i "$w/media/src_h264.mp4" -pix_fmt yuv420p -f yuv4mpegpipe "$w/sources/src.y4m"
  "${ff[@]}" -i "$w/media/src10_hevc.mkv" -pix_fmt yuv420p10le -strict -1 -f yuv4mpegpipe \
    "$w/sources/src10.y4m"
  "$w/ffx2/ffmpeg" -version | head -1 >"$out/versions.txt"
  SSIMD_BIN=$bundle/bin SSIMD_BACKEND=gpu VMAF_THREADS=2 FFMPEG=$w/ffx2/ffmpeg \
    SSIMD_VARIANTS="gpu_decode=--hw_decode=cuda" \
    FEATURES="float_ssim ssim psnr=enable_chroma=false float_ms_ssim" \
    VMAF_FEATURES="float_ssim psnr=enable_chroma=false float_ms_ssim" \
    bash bench/ladder_vs_pipeline.sh "$w/media" "$w/sources" "$w/ffx2/vmaf" "$w/pipeline" 2
  cp "$w/pipeline/times.txt" "$w/pipeline/check.txt" "$out/"
  tail -n 20 "$out/times.txt" "$out/check.txt"
  exit 0
fi
eight="h264_1920x1080=h264_1920x1080.mp4,h264_1280x720=h264_1280x720.mp4"
eight+=",h264_960x540=h264_960x540.mp4,h264_640x360=h264_640x360.mp4"
eight+=",h264_426x240=h264_426x240.mp4,hevc_1280x720=hevc_1280x720.mkv,vp9_960x540=vp9_960x540.webm"
ten="hevc10_1920x1080=hevc10_1920x1080.mkv,hevc10_960x540=hevc10_960x540.mkv"
export LADDERS="src_h264.mp4:$eight src10_hevc.mkv:$ten"
export ONE_ROUNDS=0 TESTS="" CLIENT_BACKEND=auto
export COMMON_SERVER_FLAGS="--hw_decode_sessions=64"
run() {  # NAME FEATURES LADDER_RUNS CONFIG...
  local name=$1 features=$2 runs=$3; shift 3
  FEATURES="$features" LADDER_RUNS="$runs" \
    bash bench/scripts/ladder_throughput.sh "$bundle" "$w/media" "$out/$name" "$@"
}
gpu='dev=ssimd_server:--backend=gpu --hw_decode=cuda'
cpu='cpu=ssimd_server:--backend=cpu'
four="float_ssim ssim psnr=enable_chroma=false float_ms_ssim"
run four_vs_cpu "$four" "dev:1 cpu:1" "$gpu" "$cpu"
for round in 1 2; do
  run "float_ssim_$round" "float_ssim" "dev:1 dev:1" "$gpu"
  run "two_$round" "float_ssim ssim" "dev:1 dev:1" "$gpu"
  run "four_$round" "$four" "dev:1 dev:1" "$gpu"
done
for d in "$out"/*/; do
  sed "s|^|$(basename "$d"): |" "$d/ladders.txt" "$d/check.txt"
done | tee "$out/summary.txt"
