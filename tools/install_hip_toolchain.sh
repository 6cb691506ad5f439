#!/usr/bin/env bash
# Puts Debian 13's HIP compiler (clang 17, lld 17, clang-offload-bundler, the ROCm device libraries
# for LLVM 17) under a private prefix on a Debian 12 machine, so that
# `--config=rocm` builds code objects for gfx942 (MI300) and gfx1100 (RDNA3), which Debian 12's
# hipcc 5.2 (LLVM 15) cannot target. Nothing is installed into the system: the packages are
# fetched from Debian's archive with a private apt configuration and unpacked with `dpkg -x`;
# Debian 13's C library comes along and the compiler's executables are pointed at it (patchelf),
# since they need glibc 2.38. Debian 13 machines (the container's build stage) install the same
# packages natively and do not need this script. Decisions: docs/adr/0066.
#
# Idempotent: a prefix holding the same package list is left as it is. Needs patchelf (from
# tools/install_deps.sh with SSIMD_WITH_HIPCC=1) and access to Debian's archive.
#
#   SSIMD_HIP_TOOLCHAIN   the prefix (default /opt/ssimd-hip-llvm17; .bazelrc's rocm config names it)
#   SSIMD_DEBIAN_MIRROR   the archive (default http://deb.debian.org/debian)
set -euo pipefail

prefix="${SSIMD_HIP_TOOLCHAIN:-/opt/ssimd-hip-llvm17}"
mirror="${SSIMD_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
suite=trixie

# The compiler and what it loads. HIP's headers and runtime stay the host's own (Debian 12's
# libamdhip64-dev), so host code compiled by GCC and by clang sees one HIP.
packages=(
  clang-17 clang-tools-17 lld-17 libclang-common-17-dev libclang-cpp17t64 libllvm17t64
  rocm-device-libs-17
  libc6 libgcc-s1 libstdc++6 libedit2 libffi8 liblzma5 libmd0 libbsd0 libtinfo6 libxml2 libz3-4
  libzstd1 zlib1g
)
stamp="${prefix}/ssimd-toolchain.txt"
wanted="suite=${suite} packages=${packages[*]}"
if [[ -f "${stamp}" ]] && [[ "$(head -n 1 "${stamp}")" == "${wanted}" ]]; then
  echo "install_hip_toolchain: ${prefix} is up to date"
  exit 0
fi
# The prefix is outside the user's home (.bazelrc names it), so a non-root user goes through sudo,
# as tools/install_deps.sh does.
if [[ $(id -u) -ne 0 ]] && ! [[ -w "$(dirname "${prefix}")" ]]; then
  exec sudo --preserve-env=SSIMD_HIP_TOOLCHAIN,SSIMD_DEBIAN_MIRROR "$0" "$@"
fi
for tool in patchelf apt-get dpkg-deb; do
  command -v "${tool}" >/dev/null || {
    echo "install_hip_toolchain: ${tool} is missing (SSIMD_WITH_HIPCC=1 tools/install_deps.sh)" >&2
    exit 1
  }
done

work=$(mktemp -d)
staging="${prefix}.partial"
trap 'rm -rf "${work}" "${staging}"' EXIT
mkdir -p "${work}/lists/partial" "${work}/cache/archives/partial" "${work}/debs"
touch "${work}/status"
echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] ${mirror} ${suite} main" \
  >"${work}/sources.list"
apt_options=(
  -o "Dir::Etc::SourceList=${work}/sources.list" -o Dir::Etc::SourceParts=/dev/null
  -o "Dir::State::Lists=${work}/lists" -o "Dir::Cache=${work}/cache"
  -o "Dir::State::status=${work}/status" -o APT::Sandbox::User=root
)
echo "install_hip_toolchain: fetching ${#packages[@]} packages from ${mirror} ${suite}"
apt-get "${apt_options[@]}" -q update >/dev/null
(cd "${work}/debs" && apt-get "${apt_options[@]}" -q download "${packages[@]}" >/dev/null)

rm -rf "${staging}"
mkdir -p "${staging}"
{
  echo "${wanted}"
  for deb in "${work}"/debs/*.deb; do
    dpkg-deb -x "${deb}" "${staging}"
    # shellcheck disable=SC2016  # dpkg's fields, not the shell's
    dpkg-deb --show --showformat='${Package} ${Version}\n' "${deb}"
  done
} >"${work}/stamp"

# Executables load Debian 13's C library through its own dynamic loader; every library is found
# through an absolute RPATH (not RUNPATH, which would not apply to their own dependencies).
libdirs="${prefix}/usr/lib/x86_64-linux-gnu:${prefix}/usr/lib/llvm-17/lib"
loader="${prefix}/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"
while IFS= read -r -d '' file; do
  [[ "$(head -c 4 "${file}" | od -An -c | tr -d ' ')" == "177ELF" ]] || continue
  if patchelf --print-interpreter "${file}" >/dev/null 2>&1; then
    patchelf --set-interpreter "${loader}" "${file}"
    patchelf --remove-rpath "${file}"
    patchelf --force-rpath --set-rpath "${libdirs}" "${file}"
  elif [[ -n "$(patchelf --print-rpath "${file}" 2>/dev/null)" ]]; then
    patchelf --remove-rpath "${file}"
    patchelf --force-rpath --set-rpath "${libdirs}" "${file}"
  fi
done < <(find "${staging}/usr/lib/llvm-17/bin" "${staging}/usr/lib/llvm-17/lib" \
  "${staging}/usr/lib/x86_64-linux-gnu" -maxdepth 1 -type f \
  ! -name 'ld-linux-x86-64.so.2' ! -name 'libc.so.6' -print0)

mv "${work}/stamp" "${staging}/ssimd-toolchain.txt"
rm -rf "${prefix}"
mv "${staging}" "${prefix}"
"${prefix}/usr/lib/llvm-17/bin/clang" --version | head -n 1
echo "install_hip_toolchain: ${prefix} ready"
