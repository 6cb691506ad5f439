#!/usr/bin/env bash
# For each kernels/*.hip: gfx90a code from Debian 12's hipcc 5.2 (LLVM 15) and from Debian 13's
# clang 17 (the prefix), same numerics flags; histogram of fused multiply-add mnemonics in each.
set -euo pipefail
R=/opt/ssimd-hip-llvm17/usr
out=${1:?usage: compare_fma.sh OUTDIR}
flags=(-x hip -std=c++17 -O3 -fPIC -ffp-contract=off -fno-fast-math -fno-gpu-flush-denormals-to-zero -DSSIMD_GPU_ROCM=1 -I. -c)
for src in kernels/*.hip; do
  name=$(basename "$src" .hip)
  /usr/bin/hipcc "${flags[@]}" --offload-arch=gfx90a "$src" -o "$out/$name.llvm15.o"
  "$R/lib/llvm-17/bin/clang" "${flags[@]}" -fhip-fp32-correctly-rounded-divide-sqrt \
    --rocm-path="$R" --rocm-device-lib-path="$R/lib/llvm-17/lib/clang/17/amdgcn/bitcode" \
    --offload-arch=gfx90a "$src" -o "$out/$name.llvm17.o"
  for v in llvm15 llvm17; do
    objcopy -O binary --only-section=.hip_fatbin "$out/$name.$v.o" "$out/$name.$v.fat"
    "$R/lib/llvm-17/bin/clang-offload-bundler" --unbundle --type=o --input="$out/$name.$v.fat" \
      --targets=hipv4-amdgcn-amd-amdhsa--gfx90a --output="$out/$name.$v.co"
    echo "== $name, $v:"
    llvm-objdump-15 -d --mcpu=gfx90a "$out/$name.$v.co" |
      grep -oE '\bv_(fma|fmac|fmas|mad|mac|pk_fma)[a-z0-9_]*' | sort | uniq -c || true
  done
done
