#!/usr/bin/env bash
# The device call: the exact sum whose last block finishes the frame (new) against the
# one-pass kernel with ordered blocks chained by exact-sum waits (v5), from the repository root.
set -u
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p $OUT/r
cd "$here"
tar -xJf pack.tar.xz
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $OUT/r/device.txt
N=$(ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
timeout 150 ./run.sh gpu_exact_sum_test > $OUT/r/gpu_exact_sum_test_new.txt 2>&1; rc=$?
echo "new exact_sum_test rc=$rc"; grep -E "OK \]|FAILED|kernel launches|compared|Failure|want" $OUT/r/gpu_exact_sum_test_new.txt | head -12
if [[ $rc != 0 ]]; then echo "the new kernel failed: skipping its timings"; ok=0; else ok=1; fi
for v in new v5; do
  [[ $v == new && $ok == 0 ]] && continue
  r=./run.sh; [[ $v != new ]] && r=$v/run.sh
  timeout 60 $r exact_sum_trace 20 > $OUT/r/exact_sum_trace_$v.txt 2>&1; echo "trace $v rc=$?"; grep -E "blocks;|traced" $OUT/r/exact_sum_trace_$v.txt | cut -c1-200
done
for v in new v5; do
  [[ $v == new && $ok == 0 ]] && continue
  b=$here/bin/gpu_bench; [[ $v != new ]] && b=$here/$v/bin/gpu_bench
  LD_LIBRARY_PATH=$here/lib timeout 100 $N --clock-control none --metrics gpu__time_duration.sum -k 'regex:ExactSerialSum' --launch-count 20 $b 2 > $OUT/r/ncu_kernel_us_$v.txt 2>&1; echo "ncu $v rc=$?"
done
for round in 1 2; do
  for v in v5 new; do
    [[ $v == new && $ok == 0 ]] && continue
    r=./run.sh; [[ $v != new ]] && r=$v/run.sh
    timeout 80 $r gpu_bench 20 > $OUT/r/gpu_bench_${v}_$round.txt 2>&1; echo "$v rc=$?"
    grep -h "^ssim exact\|^ssim fast\|throughput.*8-bit ssim (ssim [ef]\|fell back" $OUT/r/gpu_bench_${v}_$round.txt 2>/dev/null | cut -c1-120
  done
done
if [[ $ok == 1 ]]; then
  LD_LIBRARY_PATH=$here/lib timeout 90 $N --clock-control none --section SchedulerStats --section WarpStateStats --section LaunchStats --section Occupancy --section SpeedOfLight -k 'regex:ExactSerialSum' --launch-skip 4 --launch-count 2 $here/bin/gpu_bench 1 > $OUT/r/ncu_sections_new.txt 2>&1; echo "ncu sections rc=$?"
  /usr/bin/time -f "%e s" timeout 200 ./run.sh gpu_scorer_test > $OUT/r/gpu_scorer_test_new.txt 2>&1; echo "scorer_test rc=$?"; tail -4 $OUT/r/gpu_scorer_test_new.txt
fi
cd $OUT && tar -czf results.tgz r && rm -rf r
