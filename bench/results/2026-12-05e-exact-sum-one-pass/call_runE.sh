#!/usr/bin/env bash
# The device call for bench/results/2026-12-05e-exact-sum-one-pass, run E (from the repository root).
set -u
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p $OUT/r
cd "$here"
tar -xJf pack.tar.xz
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $OUT/r/device.txt
timeout 60 ./run.sh gpu_exact_sum_test > $OUT/r/gpu_exact_sum_test_new.txt 2>&1; rc=$?
echo "new exact_sum_test rc=$rc"; grep -E "OK \]|FAILED|kernel launches|compared|Failure|want" $OUT/r/gpu_exact_sum_test_new.txt | head -8
for v in new v5; do
  r=./run.sh; [[ $v != new ]] && r=$v/run.sh
  timeout 30 $r exact_sum_trace 20 > $OUT/r/exact_sum_trace_$v.txt 2>&1; echo "trace $v rc=$?"; grep -E "blocks;|traced" $OUT/r/exact_sum_trace_$v.txt | cut -c1-200
done
for v in old new; do
  r=./run.sh; [[ $v != new ]] && r=$v/run.sh
  timeout 40 $r gpu_bench 20 > $OUT/r/gpu_bench_$v.txt 2>&1; echo "$v rc=$?"
  grep -h "^ssim exact\|^ssim fast\|throughput.*8-bit ssim (ssim [ef]\|fell back" $OUT/r/gpu_bench_$v.txt | cut -c1-120
done
/usr/bin/time -f "%e s" timeout 60 ./run.sh gpu_scorer_test > $OUT/r/gpu_scorer_test_new.txt 2>&1; echo "scorer_test rc=$?"; tail -3 $OUT/r/gpu_scorer_test_new.txt
cd $OUT && tar -czf results.tgz r && rm -rf r
