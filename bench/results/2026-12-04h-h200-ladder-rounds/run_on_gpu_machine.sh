# On the GPU machine: unpacks what travelled (the pack of
# bench/results/2026-12-04e-h200-ladder-vs-pipeline, plus old/ssimd_server: the server before
# rounds in flight) and runs bench/ladder_vs_pipeline.sh for each server, CPU then GPU scoring.
# Usage: run_on_gpu_machine.sh PACK.tar OUT_DIR
set -eu
pack=$1; out=$2; w=/tmp/ladderbench; mkdir -p "$w" "$out"
tar -xf "$pack" -C "$w"
tar -xJf "$w/bundle_ladder.tar.xz" -C "$w"
tar -xJf "$w/ffextra.tar.xz" -C "$w"
export LD_LIBRARY_PATH=$w/bundle_ladder/lib:$w/ffextra/lib
cp tests/data/ladder/ladder.tsv "$w/bundle_ladder/data/"
cp "$w"/extra/vmaf "$w/bundle_ladder/bin/"; chmod +x "$w"/bundle_ladder/bin/* "$w/ffextra/ffmpeg"
mkdir -p "$w/one_round/bin"
cp "$w/old/ssimd_server" "$w/bundle_ladder/bin/ssimd-score" "$w/one_round/bin/"
chmod +x "$w"/one_round/bin/*
ff=("$w/ffextra/ffmpeg" -hide_banner -nostdin -loglevel error -y)
mkdir -p "$w/sources"
"${ff[@]}" -i "$w/src_ffv1.mkv" -pix_fmt yuv420p -f yuv4mpegpipe "$w/sources/src.y4m"
"${ff[@]}" -i "$w/src10_ffv1.mkv" -pix_fmt yuv420p10le -strict -1 -f yuv4mpegpipe "$w/sources/src10.y4m"
for backend in cpu gpu; do
  for build in one_round rounds; do
    bin=$w/bundle_ladder/bin; [[ $build == one_round ]] && bin=$w/one_round/bin
    SSIMD_BIN=$bin SSIMD_BACKEND=$backend VMAF_THREADS=2 FFMPEG=$w/ffextra/ffmpeg \
      bash bench/ladder_vs_pipeline.sh "$w/bundle_ladder/data" "$w/sources" \
      "$w/bundle_ladder/bin/vmaf" "$w/out-$backend-$build" 3 > "$out/ladder-$backend-$build.txt" 2>&1 ||
      echo "exit $?" >> "$out/ladder-$backend-$build.txt"
  done
done
