#!/usr/bin/env bash
# The device call: ordered blocks planned by a lane group (par) against the same kernel planning
# in one thread (seq) and the kernel before both (v5), from the repository root.
set -u
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p $OUT/r
cd "$here"
tar -xJf pack.tar.xz
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $OUT/r/device.txt
N=$(ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
timeout 150 ./run.sh gpu_exact_sum_test > $OUT/r/gpu_exact_sum_test_par.txt 2>&1; rc=$?
echo "par exact_sum_test rc=$rc"; grep -E "OK \]|FAILED|kernel launches|compared|Failure|want" $OUT/r/gpu_exact_sum_test_par.txt | head -12
for v in par seq; do
  r=./run.sh; [[ $v != par ]] && r=$v/run.sh
  timeout 60 $r exact_sum_trace 20 > $OUT/r/exact_sum_trace_$v.txt 2>&1; echo "trace $v rc=$?"; grep -v "sm [0-9]*$" $OUT/r/exact_sum_trace_$v.txt | cut -c1-200
done
for v in par v5; do
  b=$here/bin/gpu_bench; [[ $v != par ]] && b=$here/$v/bin/gpu_bench
  LD_LIBRARY_PATH=$here/lib timeout 100 $N --clock-control none --metrics gpu__time_duration.sum -k 'regex:ExactSerialSum' --launch-count 20 $b 2 > $OUT/r/ncu_kernel_us_$v.txt 2>&1; echo "ncu $v rc=$?"
done
for round in 1 2; do
  vs="v5 par seq"; [[ $round == 2 ]] && vs="v5 par"
  for v in $vs; do
    r=./run.sh; [[ $v != par ]] && r=$v/run.sh
    timeout 80 $r gpu_bench 20 > $OUT/r/gpu_bench_${v}_$round.txt 2>&1; echo "$v rc=$?"
    grep -h "^ssim exact\|^ssim fast\|throughput.*8-bit ssim (ssim [ef]\|fell back" $OUT/r/gpu_bench_${v}_$round.txt 2>/dev/null | cut -c1-120
  done
done
if [[ $rc == 0 ]]; then
  /usr/bin/time -f "%e s" timeout 200 ./run.sh gpu_scorer_test > $OUT/r/gpu_scorer_test_par.txt 2>&1; echo "scorer_test rc=$?"; tail -3 $OUT/r/gpu_scorer_test_par.txt
fi
cd $OUT && tar -czf results.tgz r && rm -rf r
