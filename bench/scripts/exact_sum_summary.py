# Prints, for each file named: from gpu_bench output, the ssim rows' device time per frame
# (median, µs) and the 8-stream ssim throughput; from ncu output, the mean µs of each exact-sum
# kernel by grid size (1080p and 4K frames). Usage: python3 bench/scripts/exact_sum_summary.py FILE...
import collections
import re
import sys

for path in sys.argv[1:]:
    text = open(path).read()
    print(path)
    if '==PROF==' in text:
        found = re.findall(r'\n  (\S.*?)\(([\d, ]+)\)x\(.*?gpu__time_duration.sum\s+(\S+)\s+([\d.,]+)',
                           text, re.S)
        times = collections.defaultdict(list)
        for name, grid, unit, value in found:
            kernel = re.sub(r'.*::', '', name.split('(')[0]).strip()
            us = float(value.replace(',', '')) * {'ns': 1e-3, 'us': 1.0, 'ms': 1e3}[unit]
            times[(kernel, grid.replace(' ', ''))].append(us)
        for (kernel, grid), values in times.items():
            print(f'  {kernel} grid {grid}: {sum(values) / len(values):.1f} us mean of {len(values)}')
        continue
    for line in text.splitlines():
        m = re.match(r'^(ssim (?:fast|exact))\s+(\d+x\d+)\s+8 \|\s+([\d.]+)', line)
        if m:
            print(f'  {m.group(1)} {m.group(2)}: {m.group(3)} us')
        m = re.match(r'^throughput (\d+x\d+) 8-bit ssim \((ssim (?:fast|exact))\).*: (\d+) frames/s', line)
        if m:
            print(f'  8 streams {m.group(2)} {m.group(1)}: {m.group(3)} frames/s')
