#!/usr/bin/env bash
# The device call for bench/results/2026-12-05e-exact-sum-one-pass, run D (from the repository root).
set -u
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p $OUT/r
cd "$here"
tar -xJf pack.tar.xz
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $OUT/r/device.txt
N=$(ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
timeout 150 ./run.sh gpu_exact_sum_test > $OUT/r/gpu_exact_sum_test_new.txt 2>&1; rc=$?
echo "new exact_sum_test rc=$rc"; grep -E "OK \]|FAILED|kernel launches|compared|Failure|want" $OUT/r/gpu_exact_sum_test_new.txt | head -12
if [[ $rc == 124 ]]; then echo "timed out: skipping the new kernel's timings"; ok=0; else ok=1; fi
for v in new v4 v3; do
  [[ $v == new && $ok == 0 ]] && continue
  r=./run.sh; [[ $v != new ]] && r=$v/run.sh
  timeout 60 $r exact_sum_trace 20 > $OUT/r/exact_sum_trace_$v.txt 2>&1; echo "trace $v rc=$?"; grep -E "blocks;|traced" $OUT/r/exact_sum_trace_$v.txt | cut -c1-200
done
[[ $ok == 1 ]] && { LD_LIBRARY_PATH=$here/lib timeout 100 $N --clock-control none --metrics gpu__time_duration.sum -k 'regex:ExactSerialSum' --launch-count 20 $here/bin/gpu_bench 2 > $OUT/r/ncu_kernel_us_new.txt 2>&1; echo "ncu new rc=$?"; }
for round in 1 2; do
  vs="old v3 v4 new"; [[ $round == 2 ]] && vs="old new"
  for v in $vs; do
    [[ $v == new && $ok == 0 ]] && continue
    r=./run.sh; [[ $v != new ]] && r=$v/run.sh
    timeout 80 $r gpu_bench 20 > $OUT/r/gpu_bench_${v}_$round.txt 2>&1; echo "$v rc=$?"
    grep -h "^ssim exact\|^ssim fast\|throughput.*8-bit ssim (ssim [ef]\|fell back" $OUT/r/gpu_bench_${v}_$round.txt 2>/dev/null | cut -c1-120
  done
done
if [[ $ok == 1 ]]; then
  /usr/bin/time -f "%e s" timeout 200 ./run.sh gpu_scorer_test > $OUT/r/gpu_scorer_test_new.txt 2>&1; echo "scorer_test rc=$?"; tail -4 $OUT/r/gpu_scorer_test_new.txt
fi
cd $OUT && tar -czf results.tgz r && rm -rf r
