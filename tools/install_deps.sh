#!/usr/bin/env bash
# Installs what ssimd needs to build and test on Debian 12, from Debian's own archive only.
# Idempotent: packages already present are skipped, and apt is not touched when nothing is missing.
# Set SSIMD_WITH_HIPCC=1 to also install what AMD builds need from Debian 12 (HIP's headers and
# runtime to link against, and patchelf for tools/install_hip_toolchain.sh, which then fetches the
# compiler: clang 17 from Debian 13), and
# SSIMD_WITH_FUZZ=1 for clang 14 and its runtime (tools/fuzz.sh).
set -euo pipefail

packages=(
  bazel-bootstrap bazel-rules-java bazel-skylib
  protobuf-compiler protobuf-compiler-grpc libgrpc++-dev libprotobuf-dev libabsl-dev
  libspdlog-dev libfmt-dev nlohmann-json3-dev prometheus-cpp-dev libgtest-dev libgmock-dev libbenchmark-dev
  pkg-config python3 python3-grpcio python3-protobuf python3-venv xz-utils
  libavformat-dev libavcodec-dev libavutil-dev libswscale-dev ffmpeg libffmpeg-nvenc-dev libva-dev
  libcurl4-openssl-dev
  prometheus yamllint
)
if [[ "${SSIMD_WITH_HIPCC:-0}" == 1 ]]; then
  packages+=(libamdhip64-dev patchelf)
fi
if [[ "${SSIMD_WITH_FUZZ:-0}" == 1 ]]; then
  packages+=(clang-14 libclang-rt-14-dev)
fi
if [[ -n "${SSIMD_EXTRA_PACKAGES:-}" ]]; then
  read -r -a extra <<<"${SSIMD_EXTRA_PACKAGES}"
  packages+=("${extra[@]}")
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
  echo "install_deps: all ${#packages[@]} packages present"
  exit 0
fi
echo "install_deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
sudo_cmd=()
[[ $(id -u) -eq 0 ]] || sudo_cmd=(sudo)
"${sudo_cmd[@]}" apt-get update -q
"${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
