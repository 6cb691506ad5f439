# Mean µs per exact-sum kernel over the first five frames (1080p) and the next five (4K) of an
# ncu file written by `ncu --metrics gpu__time_duration.sum ... gpu_bench 2`.
# Usage: python3 summarise_ncu.py FILE...
import re,sys
for f in sys.argv[1:]:
    names=[];vals=[]
    cur=None
    for line in open(f):
        m=re.match(r'^  (\S+?)\(',line) or re.match(r'^  [^ ]*?(\w+)\(',line)
        if re.match(r'^  \S',line) and '(' in line and 'gpu__' not in line:
            n=line.strip().split('(')[0].split('::')[-1]; cur=n
        m=re.search(r'gpu__time_duration.sum\s+(\S+)\s+([\d.,]+)',line)
        if m and cur:
            v=float(m.group(2).replace(',',''))
            if m.group(1)=='ns': v/=1000
            if m.group(1)=='ms': v*=1000
            names.append(cur); vals.append(v)
    # group into frames of 5 kernels
    kern=['SegmentSums','PlanRuns','SegmentPieces','RunPieces','Chain']
    frames=[vals[i:i+5] for i in range(0,len(vals),5)]
    out=[]
    for label,fr in (('1080p',frames[:5]),('4K',frames[5:10])):
        means=[sum(x[k] for x in fr)/len(fr) for k in range(5)]
        out.append(label+': '+' '.join(f'{kern[k]} {means[k]:.1f}' for k in range(5))+f' total {sum(means):.1f} ({len(fr)} frames)')
    print(f); print('  '+'\n  '.join(out))
