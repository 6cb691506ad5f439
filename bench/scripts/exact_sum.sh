#!/usr/bin/env bash
# The exact integer-ssim frame sum (docs/adr/0022) on a GPU machine: one build against others,
# side by side on one card. Replaces the per-run device scripts once copied into results folders.
#
#   bench/scripts/exact_sum.sh BUNDLE_DIR OUT_DIR
#
# BUNDLE_DIR is an unpacked `tools/bundle_gpu.sh` bundle (optionally `--reference DIR`); the build
# under test is BUNDLE_DIR itself (variant ROOT_NAME, default `new`), every other variant a bundle
# of its own build in BUNDLE_DIR/NAME (at least NAME/run.sh and NAME/bin/gpu_bench).
#
# Settings (environment):
#   VARIANTS  variants timed, in the order each round runs them (default: "new"; e.g. "old new")
#   ROOT_NAME the name of the build in BUNDLE_DIR itself (default new)
#   ROUNDS    rounds of gpu_bench, variants alternating (default 2)
#   FRAMES    frames of gpu_bench and exact_sum_trace (default 20)
#   STEPS     which steps run (default "exactness trace ncu bench scorer"); also "sections":
#               exactness  gpu_exact_sum_test of every variant (a failing variant is left out
#                          of the timings)
#               trace      exact_sum_trace FRAMES: per-block stage stamps
#               ncu        the exact-sum kernels alone under Nsight Compute (NCU_LAUNCHES launches)
#               sections   Nsight Compute's scheduler, warp-state, occupancy sections of the
#                          root build
#               bench      gpu_bench FRAMES per variant and round
#               scorer     gpu_scorer_test of the root build (every value against the CPU
#                          engine)
#   NCU       path of ncu (default: the newest under /opt/nvidia/nsight-compute)
#   NCU_LAUNCHES  kernel launches profiled (default 20)
#
# Writes into OUT_DIR: device.txt, gpu_exact_sum_test_V.txt, exact_sum_trace_V.txt,
# ncu_kernel_us_V.txt, ncu_sections_ROOT.txt, gpu_bench_V_R.txt, gpu_scorer_test_ROOT.txt;
# then prints bench/scripts/exact_sum_summary.py's summary of them (also summary.txt).
set -u
usage="usage: bench/scripts/exact_sum.sh BUNDLE_DIR OUT_DIR"
bundle=$(cd "${1:?$usage}" && pwd)
out=$(mkdir -p "${2:?$usage}" && cd "$2" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
read -r -a variants <<<"${VARIANTS:-new}"
rounds=${ROUNDS:-2}
frames=${FRAMES:-20}
steps=" ${STEPS:-exactness trace ncu bench scorer} "
ncu=${NCU:-$(ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | sort -V | tail -1)}
launches=${NCU_LAUNCHES:-20}

root=${ROOT_NAME:-new}
dir_of() { [[ $1 == "$root" ]] && echo "$bundle" || echo "$bundle/$1"; }
has() { [[ $steps == *" $1 "* ]]; }

nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$out/device.txt"
declare -A ok
for v in "${variants[@]}"; do ok[$v]=1; done
if has exactness; then
  for v in "${variants[@]}"; do
    (cd "$(dir_of "$v")" && timeout 150 ./run.sh gpu_exact_sum_test) \
      >"$out/gpu_exact_sum_test_$v.txt" 2>&1
    rc=$?; echo "gpu_exact_sum_test $v rc=$rc"
    grep -E "OK \]|FAILED|kernel launches|compared" "$out/gpu_exact_sum_test_$v.txt" | head -8
    [[ $rc == 0 ]] || ok[$v]=0
  done
fi
if has trace; then
  for v in "${variants[@]}"; do
    [[ ${ok[$v]} == 1 ]] || continue
    (cd "$(dir_of "$v")" && timeout 60 ./run.sh exact_sum_trace "$frames") \
      >"$out/exact_sum_trace_$v.txt" 2>&1; echo "exact_sum_trace $v rc=$?"
  done
fi
if has ncu && [[ -n $ncu ]]; then
  for v in "${variants[@]}"; do
    [[ ${ok[$v]} == 1 ]] || continue
    d=$(dir_of "$v")
    LD_LIBRARY_PATH=$d/lib timeout 100 "$ncu" --clock-control none \
      --metrics gpu__time_duration.sum -k 'regex:ExactSerialSum' --launch-count "$launches" \
      "$d/bin/gpu_bench" 2 >"$out/ncu_kernel_us_$v.txt" 2>&1; echo "ncu $v rc=$?"
  done
fi
if has sections && [[ -n $ncu && ${ok[$root]:-0} == 1 ]]; then
  LD_LIBRARY_PATH=$bundle/lib timeout 90 "$ncu" --clock-control none --section SchedulerStats \
    --section WarpStateStats --section LaunchStats --section Occupancy --section SpeedOfLight \
    -k 'regex:ExactSerialSum' --launch-skip 4 --launch-count 2 "$bundle/bin/gpu_bench" 1 \
    >"$out/ncu_sections_$root.txt" 2>&1; echo "ncu sections rc=$?"
fi
if has bench; then
  for round in $(seq "$rounds"); do
    for v in "${variants[@]}"; do
      [[ ${ok[$v]} == 1 ]] || continue
      (cd "$(dir_of "$v")" && timeout 80 ./run.sh gpu_bench "$frames") \
        >"$out/gpu_bench_${v}_$round.txt" 2>&1; echo "gpu_bench $v round $round rc=$?"
    done
  done
fi
if has scorer && [[ ${ok[$root]:-0} == 1 ]]; then
  (cd "$bundle" && timeout 200 ./run.sh gpu_scorer_test) >"$out/gpu_scorer_test_$root.txt" 2>&1
  echo "gpu_scorer_test rc=$?"; tail -n 3 "$out/gpu_scorer_test_$root.txt"
fi
python3 "$here/exact_sum_summary.py" "$out"/gpu_bench_*.txt "$out"/ncu_kernel_us_*.txt 2>/dev/null |
  tee "$out/summary.txt"
