set -u
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p $OUT/r
cd "$here"
tar -xJf pack.tar.xz
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
N=$(ls /opt/nvidia/nsight-compute/*/ncu | head -1)
ncu_line() { grep -E "^  [A-Za-z_:<>0-9 ]+.*\(|gpu__time_duration" $1 | paste - - | sed -E 's/^ +//; s/\(.*gpu__time_duration.sum +([a-z]+) +/ \1 /' | awk '{n=$1; sub(/.*::/,"",n); print n, $3}' | tr '\n' ';' | cut -c1-500; echo; }
timeout 90 ./run.sh gpu_exact_sum_test > $OUT/r/gpu_exact_sum_test_new.txt 2>&1; echo "new exact_sum_test rc=$?"; tail -3 $OUT/r/gpu_exact_sum_test_new.txt | head -2
for v in new old regs73; do
  b=$here/bin/gpu_bench; [[ $v != new ]] && b=$here/$v/bin/gpu_bench
  LD_LIBRARY_PATH=$here/lib timeout 120 $N --clock-control none --metrics gpu__time_duration.sum -k 'regex:SegmentSums|PlanRuns|SegmentPieces|RunPieces|Chain' --launch-count 60 $b 2 > $OUT/r/ncu_kernel_us_$v.txt 2>&1; echo "ncu $v rc=$?"
  ncu_line $OUT/r/ncu_kernel_us_$v.txt
done
for round in 1 2; do
  timeout 80 old/run.sh gpu_bench 20 > $OUT/r/gpu_bench_old_$round.txt 2>&1; echo "old rc=$?"
  timeout 80 ./run.sh gpu_bench 20 > $OUT/r/gpu_bench_new_$round.txt 2>&1; echo "new rc=$?"
  timeout 80 regs73/run.sh gpu_bench 20 > $OUT/r/gpu_bench_regs73_$round.txt 2>&1; echo "regs73 rc=$?"
  for v in old new regs73; do echo $v; grep -h "^ssim exact\|^ssim fast\|throughput.*8-bit ssim (ssim [ef]\|fell back" $OUT/r/gpu_bench_${v}_$round.txt | cut -c1-140; done
done
/usr/bin/time -f "%e s" timeout 250 ./run.sh gpu_scorer_test > $OUT/r/gpu_scorer_test_new.txt 2>&1; echo "scorer_test rc=$?"; tail -4 $OUT/r/gpu_scorer_test_new.txt
LD_LIBRARY_PATH=$here/lib timeout 120 $N --clock-control none --section WarpStateStats --section InstructionStats --section SourceCounters --section LaunchStats -k regex:Chain --launch-skip 1 --launch-count 1 $here/bin/gpu_bench 2 > $OUT/r/ncu_chain_detail_new.txt 2>&1; echo "ncu detail rc=$?"
cd $OUT && tar -czf results.tgz r && rm -rf r
