#!/usr/bin/env bash
# Builds ssimd's fuzz targets (fuzz/*_fuzzer.cc) with clang 14, libFuzzer, AddressSanitizer and
# UndefinedBehaviorSanitizer, outside Bazel (which builds with gcc), and runs each one for a
# bounded time. Prints executions and crashes per target; exits 1 if any target crashed, leaked,
# timed out or failed to build.
#
#   tools/fuzz.sh                      # every target, 20 s each (what CI runs)
#   tools/fuzz.sh --time=600 request   # one target for 10 minutes
#
# Options:
#   --time=SECONDS    fuzzing time per target (default 20)
#   --parallel=N      targets fuzzed at once (default 1)
#   --build_dir=DIR   objects, binaries, grown corpora, crash files and logs
#                     (default ${TMPDIR:-/tmp}/ssimd-fuzz; kept between runs, so rebuilds are
#                     incremental and each run starts from the corpus the previous one grew)
#   --jobs=N          compile jobs (default: the number of cores)
#   --build_only      build the fuzzers, do not run them
#
# A crash leaves its input in BUILD_DIR/artifacts/<target>/; reproduce it with
#   BUILD_DIR/bin/<target>_fuzzer BUILD_DIR/artifacts/<target>/crash-...
# and, once fixed, check it in as fuzz/corpus/<target>/regress-<what> so the Bazel replay test
# (//fuzz:<target>_fuzzer_test) keeps it fixed. See docs/adr/0050.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TIME=20
PARALLEL=1
BUILD_DIR="${TMPDIR:-/tmp}/ssimd-fuzz"
JOBS="$(nproc)"
BUILD_ONLY=0
SELECTED=()
for arg in "$@"; do
  case "$arg" in
    --time=*) TIME="${arg#*=}" ;;
    --parallel=*) PARALLEL="${arg#*=}" ;;
    --build_dir=*) BUILD_DIR="${arg#*=}" ;;
    --jobs=*) JOBS="${arg#*=}" ;;
    --build_only) BUILD_ONLY=1 ;;
    -h|--help) sed -n '2,26p' "$0"; exit 0 ;;
    --*) echo "fuzz.sh: unknown option $arg (see --help)" >&2; exit 2 ;;
    *) SELECTED+=("$arg") ;;
  esac
done

# Each target's own sources besides fuzz/<target>_fuzzer.cc; "PROTO" stands for the generated
# ssimd.v1 message code. Keep in step with the deps in fuzz/BUILD.bazel.
declare -A SOURCES=(
  [feature_args]="engine/features.cc engine/feature_table.cc base/client_text.cc engine/picture.cc"
  [y4m_reader]="engine/io/frame_reader.cc engine/io/y4m_header.cc engine/picture.cc"
  [yuv_reader]="engine/io/frame_reader.cc engine/io/y4m_header.cc engine/picture.cc"
  [media_decoder]="engine/media/video_decoder.cc engine/media/decode_error.cc
                   engine/media/hw_decode_device.cc engine/media/hw_frame_download.cc
                   engine/media/cuda_picture_sync.cc engine/media/device_picture.cc
                   engine/media/decode_caps.cc engine/media/nvdec_caps.cc
                   engine/media/nvdec_utilization.cc engine/media/vaapi_caps.cc
                   engine/media/split_points.cc engine/media/decoder_memory.cc
                   engine/media/picture_memory_budget.cc
                   engine/media/picture_scaler.cc engine/scaler_choice.cc
                   engine/media/pixel_formats.cc engine/media/frame_planes.cc
                   engine/media/av_handles.cc engine/picture.cc"
  [split_points]="engine/media/split_points.cc"
  [request]="engine/features.cc engine/feature_table.cc base/client_text.cc engine/picture.cc
             proto/pixel_format.cc engine/dispatcher.cc engine/pooling.cc
             engine/scorer.cc engine/plane_pieces.cc engine/luma_scale_plan.cc
             engine/luma_scale_host.cc
             engine/cpu/cpu_scorer.cc engine/cpu/float_ssim.cc engine/cpu/integer_ssim.cc
             engine/cpu/psnr.cc engine/psnr_scores.cc engine/cpu/ms_ssim.cc
             engine/ms_ssim_scores.cc engine/cpu/vmaf/vmaf_frame.cc engine/cpu/vmaf/adm.cc
             engine/cpu/vmaf/vif.cc engine/cpu/vmaf/motion.cc engine/vmaf/model.cc
             engine/vmaf/model_registry.cc
             engine/cpu/sample_plane.cc base/thread_pool.cc server/request_parsing.cc
             proto/clip_accumulator.cc proto/wire_format.cc server/wire_split.cc
             server/wire_request.cc PROTO"
)
ALL_TARGETS=(feature_args y4m_reader yuv_reader media_decoder split_points request)
if [[ ${#SELECTED[@]} -eq 0 ]]; then SELECTED=("${ALL_TARGETS[@]}"); fi
for t in "${SELECTED[@]}"; do
  if [[ -z "${SOURCES[$t]+x}" ]]; then
    echo "fuzz.sh: unknown target '$t' (targets: ${ALL_TARGETS[*]})" >&2
    exit 2
  fi
done

CXX="${CXX_FUZZ:-clang++-14}"
if ! command -v "$CXX" >/dev/null; then
  echo "fuzz.sh: $CXX not found; install clang-14 and libclang-rt-14-dev (Debian)" >&2
  exit 1
fi
for tool in protoc pkg-config make; do
  command -v "$tool" >/dev/null || { echo "fuzz.sh: $tool not found" >&2; exit 1; }
done

mkdir -p "$BUILD_DIR"
BUILD_DIR="$(cd "$BUILD_DIR" && pwd)"
GEN="$BUILD_DIR/gen"
# Objects and their dependency files name the sources by absolute path: a build directory last
# used by another checkout starts its objects afresh (the grown corpora stay).
if [[ "$(cat "$BUILD_DIR/source_root" 2>/dev/null)" != "$ROOT" ]]; then
  rm -rf "$BUILD_DIR/obj" "$BUILD_DIR/bin" "$GEN"
  echo "$ROOT" > "$BUILD_DIR/source_root"
fi

# Generated message code (no gRPC stubs: the targets only parse and validate messages).
PROTO_SRC="$ROOT/proto/ssimd/v1/ssimd.proto"
PROTO_CC="$GEN/proto/ssimd/v1/ssimd.pb.cc"
if [[ ! -f "$PROTO_CC" || "$PROTO_SRC" -nt "$PROTO_CC" ]]; then
  mkdir -p "$GEN"
  protoc --proto_path="$ROOT" --cpp_out="$GEN" "$PROTO_SRC"
fi

PKGS="absl_status absl_statusor absl_strings absl_str_format absl_synchronization protobuf spdlog libavformat libavcodec libavutil libswscale ffnvcodec libva"
SAN="-fsanitize=address,undefined -fno-sanitize-recover=all"
# -ffp-contract=off as in .bazelrc, so the arithmetic under test is the one Bazel builds.
CXXFLAGS="-std=c++17 -O1 -g -fno-omit-frame-pointer -ffp-contract=off $SAN -fsanitize=fuzzer-no-link \
-I$ROOT -I$GEN $(pkg-config --cflags $PKGS)"
LIBS="$(pkg-config --libs $PKGS) -ldl -pthread"

# A generated Makefile gives incremental, parallel builds with header dependencies.
{
  echo "CXX := $CXX"
  echo "CXXFLAGS := $CXXFLAGS"
  echo "LIBS := $LIBS"
  echo "SAN := $SAN"
  echo "obj/src/%.o: $ROOT/%.cc"
  printf '\t@mkdir -p $(dir $@)\n\t$(CXX) $(CXXFLAGS) -MMD -MP -c $< -o $@\n'
  echo "obj/gen/%.o: $GEN/%.cc"
  printf '\t@mkdir -p $(dir $@)\n\t$(CXX) $(CXXFLAGS) -MMD -MP -c $< -o $@\n'
  all_objs=()
  bins=()
  for t in "${SELECTED[@]}"; do
    objs=("obj/src/fuzz/${t}_fuzzer.o")
    for s in ${SOURCES[$t]}; do
      if [[ "$s" == PROTO ]]; then objs+=("obj/gen/proto/ssimd/v1/ssimd.pb.o")
      else objs+=("obj/src/${s%.cc}.o"); fi
    done
    echo "bin/${t}_fuzzer: ${objs[*]}"
    printf '\t@mkdir -p bin\n\t$(CXX) $(SAN) -fsanitize=fuzzer $^ $(LIBS) -o $@\n'
    all_objs+=("${objs[@]}")
    bins+=("bin/${t}_fuzzer")
  done
  echo "all: ${bins[*]}"
  echo ".DEFAULT_GOAL := all"
  echo "-include $(printf '%s\n' "${all_objs[@]}" | sort -u | sed 's/\.o$/.d/' | tr '\n' ' ')"
} > "$BUILD_DIR/Makefile"

echo "fuzz.sh: building ${SELECTED[*]} in $BUILD_DIR"
build_start=$SECONDS
if ! make -C "$BUILD_DIR" -j"$JOBS" --no-print-directory > "$BUILD_DIR/build.log" 2>&1; then
  tail -n 40 "$BUILD_DIR/build.log" >&2
  echo "fuzz.sh: build failed (log: $BUILD_DIR/build.log)" >&2
  exit 1
fi
echo "fuzz.sh: built in $((SECONDS - build_start)) s"
if [[ "$BUILD_ONLY" == 1 ]]; then exit 0; fi

export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"

# Fuzzes one target; its log ends with libFuzzer's final statistics.
run_target() {
  local t="$1"
  local work="$BUILD_DIR/corpus/$t" artifacts="$BUILD_DIR/artifacts/$t" log="$BUILD_DIR/logs/$t.log"
  mkdir -p "$work" "$artifacts" "$(dirname "$log")"
  local dict=()
  if [[ -f "$ROOT/fuzz/dict/$t.dict" ]]; then dict=("-dict=$ROOT/fuzz/dict/$t.dict"); fi
  local rc=0
  "$BUILD_DIR/bin/${t}_fuzzer" -max_total_time="$TIME" -print_final_stats=1 -timeout=10 \
    -rss_limit_mb=2048 -artifact_prefix="$artifacts/" "${dict[@]}" \
    "$work" "$ROOT/fuzz/corpus/$t" > "$log" 2>&1 || rc=$?
  echo "$rc" > "$log.rc"
}

pids=()
for t in "${SELECTED[@]}"; do
  echo "fuzz.sh: fuzzing $t for ${TIME} s"
  run_target "$t" &
  pids+=($!)
  while [[ $(jobs -rp | wc -l) -ge "$PARALLEL" ]]; do wait -n || true; done
done
wait || true

total_execs=0
failed=0
printf '%-14s %14s %10s %8s %10s  %s\n' target executions exec/s seconds corpus result
for t in "${SELECTED[@]}"; do
  log="$BUILD_DIR/logs/$t.log"
  rc="$(cat "$log.rc")"
  execs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)"
  rate="$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)"
  secs="$(sed -n 's/.*Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -n 1)"
  corpus="$(find "$BUILD_DIR/corpus/$t" -type f | wc -l)"
  execs="${execs:-0}"
  total_execs=$((total_execs + execs))
  if [[ "$rc" == 0 ]]; then
    result=ok
  else
    result="FAILED (exit $rc; see $log)"
    failed=$((failed + 1))
  fi
  printf '%-14s %14s %10s %8s %10s  %s\n' "$t" "$execs" "${rate:-?}" "${secs:-?}" "$corpus" "$result"
done
for t in "${SELECTED[@]}"; do
  log="$BUILD_DIR/logs/$t.log"
  if [[ "$(cat "$log.rc")" != 0 ]]; then
    echo "---- $t: last lines of $log"
    grep -E 'ERROR|SUMMARY|invariant|Test unit written|runtime error' "$log" | tail -n 20 || true
  fi
done
echo "fuzz.sh: ${#SELECTED[@]} targets, $total_execs executions, $failed crashed"
[[ "$failed" == 0 ]]
