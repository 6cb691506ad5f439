# On the GPU machine: unpacks what travelled (the ladder bundle of tools/bundle_gpu.sh --ladder,
# Debian's ffmpeg with the libraries the bundle lacks, the ladder's sources as FFV1, libvmaf's
# vmaf) and runs bench/ladder_vs_pipeline.sh with the GPU and with the CPU scoring backend
# (decoding on the CPU both times). Usage: run_on_gpu_machine.sh PACK.tar OUT_DIR
set -eu
pack=$1; out=$2; w=/tmp/ladderbench; mkdir -p "$w" "$out"
tar -xf "$pack" -C "$w"
tar -xJf "$w/bundle_ladder.tar.xz" -C "$w"
tar -xJf "$w/ffextra.tar.xz" -C "$w"
export LD_LIBRARY_PATH=$w/bundle_ladder/lib:$w/ffextra/lib
cp tests/data/ladder/ladder.tsv "$w/bundle_ladder/data/"
cp "$w"/extra/* "$w/bundle_ladder/bin/"; chmod +x "$w"/bundle_ladder/bin/* "$w/ffextra/ffmpeg"
ff=("$w/ffextra/ffmpeg" -hide_banner -nostdin -loglevel error -y)
mkdir -p "$w/sources"
"${ff[@]}" -i "$w/src_ffv1.mkv" -pix_fmt yuv420p -f yuv4mpegpipe "$w/sources/src.y4m"
"${ff[@]}" -i "$w/src10_ffv1.mkv" -pix_fmt yuv420p10le -strict -1 -f yuv4mpegpipe "$w/sources/src10.y4m"
"$w/ffextra/ffmpeg" -version | head -1 > "$out/versions.txt"
for backend in gpu cpu; do
  SSIMD_BIN=$w/bundle_ladder/bin SSIMD_BACKEND=$backend VMAF_THREADS=2 FFMPEG=$w/ffextra/ffmpeg \
    bash bench/ladder_vs_pipeline.sh "$w/bundle_ladder/data" "$w/sources" \
    "$w/bundle_ladder/bin/vmaf" "$w/out-$backend" 3 > "$out/ladder-$backend.txt" 2>&1 ||
    echo "exit $?" >> "$out/ladder-$backend.txt"
done
