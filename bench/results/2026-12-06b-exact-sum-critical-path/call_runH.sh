#!/usr/bin/env bash
# Run H (from the repository root, bundle_diag carried: the kept kernel's programs in bin/, the
# kernel of d7bd832 in v5/bin): exactness, the trace with the run and plan stamps, and gpu_bench
# of both, alternating.
set -u
mkdir -p $OUT/r
cd bundle_diag
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $OUT/r/device.txt
timeout 60 ./run.sh gpu_exact_sum_test > $OUT/r/gpu_exact_sum_test_kept.txt 2>&1; echo "exact_sum_test rc=$?"
grep -E "OK \]|FAILED|launches|compared" $OUT/r/gpu_exact_sum_test_kept.txt
timeout 60 ./run.sh exact_sum_trace 20 > $OUT/r/exact_sum_trace_kept.txt 2>&1; echo "trace rc=$?"
grep -v "sm [0-9]*$" $OUT/r/exact_sum_trace_kept.txt | cut -c1-160
for round in 1 2; do
  for v in v5 kept; do
    r=./run.sh; [[ $v != kept ]] && r=$v/run.sh
    timeout 80 $r gpu_bench 20 > $OUT/r/gpu_bench_${v}_$round.txt 2>&1; echo "$v rc=$?"
    grep -h "^ssim exact\|^ssim fast\|throughput.*8-bit ssim (ssim [ef]\|fell back" $OUT/r/gpu_bench_${v}_$round.txt | cut -c1-120
  done
done
