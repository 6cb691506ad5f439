#!/usr/bin/env bash
# The device call for bench/results/2026-12-05e-exact-sum-one-pass, run C (from the repository root).
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
[[ $ok == 1 ]] && { timeout 60 ./run.sh exact_sum_trace 20 > $OUT/r/exact_sum_trace_new.txt 2>&1; echo "trace rc=$?"; grep -E "blocks;|traced" $OUT/r/exact_sum_trace_new.txt; }
timeout 60 v2/run.sh exact_sum_trace 20 > $OUT/r/exact_sum_trace_v2.txt 2>&1; echo "v2 trace rc=$?"; grep -E "blocks;|traced" $OUT/r/exact_sum_trace_v2.txt
for v in new; do
  [[ $v == new && $ok == 0 ]] && continue
  b=$here/bin/gpu_bench; [[ $v != new ]] && b=$here/$v/bin/gpu_bench
  LD_LIBRARY_PATH=$here/lib timeout 100 $N --clock-control none --metrics gpu__time_duration.sum -k 'regex:ExactSerialSum|SegmentSums|PlanRuns|SegmentPieces|RunPieces|Chain' --launch-count 30 $b 2 > $OUT/r/ncu_kernel_us_$v.txt 2>&1; echo "ncu $v rc=$?"
done
for round in 1 2; do
  timeout 80 old/run.sh gpu_bench 20 > $OUT/r/gpu_bench_old_$round.txt 2>&1; echo "old rc=$?"
  timeout 80 v2/run.sh gpu_bench 20 > $OUT/r/gpu_bench_v2_$round.txt 2>&1; echo "v2 rc=$?"
  [[ $ok == 1 ]] && { timeout 80 ./run.sh gpu_bench 20 > $OUT/r/gpu_bench_new_$round.txt 2>&1; echo "new rc=$?"; }
  for v in old v2 new; do echo $v; grep -h "^ssim exact\|^ssim fast\|throughput.*8-bit ssim (ssim [ef]\|fell back" $OUT/r/gpu_bench_${v}_$round.txt 2>/dev/null | cut -c1-120; done
done
if [[ $ok == 1 ]]; then
  /usr/bin/time -f "%e s" timeout 200 ./run.sh gpu_scorer_test > $OUT/r/gpu_scorer_test_new.txt 2>&1; echo "scorer_test rc=$?"; tail -4 $OUT/r/gpu_scorer_test_new.txt
fi
cd $OUT && tar -czf results.tgz r && rm -rf r
