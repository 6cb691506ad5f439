#!/usr/bin/env bash
# VMAF on the GPU against libvmaf, on the GPU machine, from the repository's root (the results go
# to bench/results/<run>/ with the command lines used), one stage per
# call (what travels with one call is bounded; the machine keeps /tmp between calls while warm):
#
#   vmaf_vs_libvmaf.sh tests TESTS_TAR OUT_DIR        the GPU tests: vmaf's kernels and the GPU
#                                                     scorer against the CPU and libvmaf
#   vmaf_vs_libvmaf.sh unpack LADDER_TAR_XZ OUT_DIR   the server bundle into /tmp/vmaf_bench
#   vmaf_vs_libvmaf.sh clips MEDIA_TAR OUT_DIR        one 1080p and one 4K clip, VMAF only: ssimd
#                                                     (ScoreFiles, GPU) against libvmaf's CPU
#                                                     (--threads 16) and its CUDA backend
#   vmaf_vs_libvmaf.sh ladder LADDER_MEDIA_TAR OUT_DIR
#                                                     a 9-rendition ladder with vmaf, float_ssim,
#                                                     ssim and psnr against ffmpeg | vmaf
#
# TESTS_TAR: bundle.tar.xz, tools/bundle_gpu.sh's bundle/ with SSIMD_BUNDLE_EXTRA_TARGETS naming the vmaf GPU
# tests, libvmaf's models (models/) and the full reference set (reference/, ../shared/reference's
# expected_*.json and clips). LADDER_TAR_XZ: SSIMD_LADDER_NO_SOURCES=1 tools/bundle_gpu.sh
# --ladder. MEDIA_TAR: src_h264.mp4 and its 1080p rendition h264_1920x1080.mp4; ffx2.tar.xz
# (Debian 12's ffmpeg with its libraries); vmaf17g (upstream libvmaf's CPU `vmaf`, f85a8536,
# printing %.17g); vmaf_cuda.tar.xz (the same libvmaf built with its CUDA backend); models/
# (libvmaf's vmaf_v0.6.1.json and vmaf_4k_v0.6.1.json). LADDER_MEDIA_TAR: ffx2.tar.xz, vmaf17g,
# models/, and tests/data/ladder/make_ladder.sh's renditions at 240 frames with src_h264.mp4,
# src10_hevc.mkv, ladder.tsv and `frames`. None of those is part of this repository.
set -u
stage=${1:?tests, unpack, clips or ladder}
input=$(cd "$(dirname "${2:?input}")" && pwd)/$(basename "$2")
out=$(mkdir -p "${3:?out dir}" && cd "$3" && pwd)
w=/tmp/vmaf_bench
bundle=$w/bundle_ladder
ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }

if [[ $stage == tests ]]; then
  rm -rf "$w/tests" && mkdir -p "$w/tests" && tar -xf "$input" -C "$w/tests"
  tar -xJf "$w/tests/bundle.tar.xz" -C "$w/tests"
  export SSIMD_VMAF_MODEL_DIR=$w/tests/models SSIMD_REFERENCE_DIR=$w/tests/reference
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >"$out/device.txt"
  # The kernels' own tests on the subset (the full set goes through the scorer in gpu_vmaf_test).
  for t in vmaf_motion_device_test vmaf_vif_device_test vmaf_adm_device_test gpu_vmaf_test; do
    filter=-*Full*; [[ $t == gpu_vmaf_test ]] && filter=*
    timeout 150 "$w/tests/bundle/run.sh" "$t" --gtest_filter="$filter" >"$out/$t.txt" 2>&1
    echo "$t rc=$?" | tee -a "$out/summary.txt"
    grep -E "compared|PASSED|FAILED|SKIPPED|us per frame" "$out/$t.txt" | tail -n 8
  done
  exit 0
fi

if [[ $stage == unpack ]]; then
  rm -rf "$bundle" && mkdir -p "$w" && tar -xJf "$input" -C "$w" && echo "unpacked into $w"
  exit 0
fi

[[ -x $bundle/bin/ssimd_server ]] || { echo "no bundle in $w: run the unpack stage first"; exit 1; }
# Each stage brings its media (what the machine kept from an earlier stage is reused).
mkdir -p "$w/media" && tar -xf "$input" -C "$w/media"
[[ -x $w/ffx2/ffmpeg ]] || tar -xJf "$w/media/ffx2.tar.xz" -C "$w"
if [[ -f $w/media/vmaf_cuda.tar.xz && ! -x $w/out/vmaf ]]; then
  tar -xJf "$w/media/vmaf_cuda.tar.xz" -C "$w"
fi
export LD_LIBRARY_PATH=$bundle/lib:$w/ffx2/lib
ff=("$w/ffx2/ffmpeg" -hide_banner -nostdin -loglevel error -y)
models=$w/media/models

if [[ $stage == clips ]]; then
  raw=$w/raw && mkdir -p "$raw"
  # 1080p: the source and its 1080p rendition, decoded; 4K: both upscaled with bicubic.
  "${ff[@]}" -i "$w/media/src_h264.mp4" -f rawvideo -pix_fmt yuv420p "$raw/ref_1080.yuv"
  "${ff[@]}" -i "$w/media/h264_1920x1080.mp4" -f rawvideo -pix_fmt yuv420p "$raw/dist_1080.yuv"
  for c in ref dist; do
    "${ff[@]}" -f rawvideo -pix_fmt yuv420p -s 1920x1080 -i "$raw/${c}_1080.yuv" \
      -vf scale=3840:2160:flags=bicubic -f rawvideo -pix_fmt yuv420p "$raw/${c}_4k.yuv"
  done
  port=$((50800 + RANDOM % 1000))
  "$bundle/bin/ssimd_server" --address=127.0.0.1:$port --metrics_address=127.0.0.1:0 \
    --backend=gpu --gpu_vmaf --files_root="$raw" --vmaf_model_dir="$models" --log_level=warn \
    >"$out/server.log" 2>&1 &
  server=$!
  sleep 2
  frames=$(( $(stat -c %s "$raw/ref_1080.yuv") / (1920 * 1080 * 3 / 2) ))
  echo "frames per clip: $frames; $(nproc) cores" | tee "$out/clips.txt"
  for size in 1080 4k; do
    if [[ $size == 1080 ]]; then dims=(-w 1920 -h 1080); model=vmaf_v0.6.1
    else dims=(-w 3840 -h 2160); model=vmaf_4k_v0.6.1; fi
    common=(-r "$raw/ref_$size.yuv" -d "$raw/dist_$size.yuv" "${dims[@]}" -p 420 -b 8)
    for round in 1 2; do
      s=$(date +%s%N)
      "$bundle/bin/ssimd-score" --server 127.0.0.1:$port --server_files --backend gpu \
        -r "ref_$size.yuv" -d "dist_$size.yuv" "${dims[@]}" -p 420 -b 8 -m "version=$model" \
        --json -o "$out/ssimd_$size.json" -q
      echo "$size round $round ssimd (gpu, ScoreFiles): $(ms "$s") ms" | tee -a "$out/clips.txt"
      s=$(date +%s%N)
      "$w/media/vmaf17g" "${common[@]}" -m "path=$models/$model.json" --threads 16 -q \
        --json -o "$out/libvmaf_cpu_$size.json" >/dev/null
      echo "$size round $round libvmaf cpu --threads 16: $(ms "$s") ms" | tee -a "$out/clips.txt"
      s=$(date +%s%N)
      "$w/out/vmaf" "${common[@]}" -m "path=$models/$model.json" --threads 0 --gpumask 0 -q \
        --json -o "$out/libvmaf_cuda_$size.json" >/dev/null 2>"$out/libvmaf_cuda_$size.err"
      echo "$size round $round libvmaf cuda: $(ms "$s") ms" | tee -a "$out/clips.txt"
    done
  done
  kill $server
  python3 - "$out" "$frames" <<'PY' | tee -a "$out/clips.txt"
import json, sys
out, frames = sys.argv[1], int(sys.argv[2])
for size in ("1080", "4k"):
    ours = json.load(open(f"{out}/ssimd_{size}.json"))["frames"]
    cpu = json.load(open(f"{out}/libvmaf_cpu_{size}.json"))["frames"]
    cuda = json.load(open(f"{out}/libvmaf_cuda_{size}.json"))["frames"]
    same = total = 0
    for a, b in zip(ours, cpu):
        for m in sorted(set(a["metrics"]) & set(b["metrics"])):
            total += 1
            same += a["metrics"][m] == b["metrics"][m]
    cuda_same = sum(a["metrics"]["vmaf"] == b["metrics"]["vmaf"] for a, b in zip(cuda, cpu))
    worst = max(abs(a["metrics"]["vmaf"] - b["metrics"]["vmaf"]) for a, b in zip(cuda, cpu))
    print(f"{size}: ssimd against libvmaf's CPU, bit for bit: {same} of {total} values "
          f"({len(ours)} frames); libvmaf CUDA's vmaf equal to its CPU's in {cuda_same} of "
          f"{len(cuda)} frames (at most {worst:.3g} apart)")
PY
  grep -il "cuda\|using CPU" "$out"/libvmaf_cuda_*.err | sed 's/^/stderr of CUDA runs: /'
  exit 0
fi

if [[ $stage == ladder ]]; then
  WORK=$w SSIMD_VARIANTS="gpu_decode=--hw_decode=cuda,--gpu_vmaf" VMAF_MODEL_DIR=$models \
    VMAF_MODEL="path=$models/vmaf_v0.6.1.json" \
    FEATURES="vmaf float_ssim ssim psnr=enable_chroma=false" \
    VMAF_FEATURES="float_ssim psnr=enable_chroma=false" \
    bash bench/scripts/ladder_metrics_on_gpu.sh pipeline - "$out"
  exit 0
fi
echo "unknown stage $stage" >&2
exit 2
