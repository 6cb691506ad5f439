#!/usr/bin/env bash
# Builds ssimd_server and runs it in the foreground on 127.0.0.1: gRPC on port 50051, Prometheus
# /metrics on port 9090. The build targets the GPU toolchain this machine has (nvcc with an NVIDIA
# GPU, hipcc with an AMD one), else the CPU; the server's first log line says which backend serves
# and, on the CPU, why. Stop it with Ctrl-C or SIGTERM (running streams get 30 s to finish).
#
# Environment: SSIMD_PORT, SSIMD_METRICS_PORT (ports), SSIMD_BUILD_CONFIG=cpu|nvidia|rocm (skip
# the detection), BAZEL (the bazel command, e.g. with --output_base). Extra arguments go to
# ssimd_server (see `ssimd_server --help`), e.g. tools/serve.sh --files_root=/srv/clips.
set -euo pipefail
cd "$(dirname "$0")/.."
./tools/install_deps.sh

read -r -a bazel <<<"${BAZEL:-bazel}"
config=${SSIMD_BUILD_CONFIG:-}
if [[ -z "$config" ]]; then
  if [[ -x /usr/local/cuda/bin/nvcc ]] && command -v nvidia-smi >/dev/null &&
     nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
    config=nvidia
  elif [[ -e /dev/kfd ]] && command -v hipcc >/dev/null; then
    config=rocm
  else
    config=cpu
  fi
fi
case "$config" in
  cpu) flags=() ;;
  nvidia | rocm) flags=("--config=$config") ;;
  *) echo "serve.sh: SSIMD_BUILD_CONFIG must be cpu, nvidia or rocm, got '$config'" >&2; exit 2 ;;
esac
echo "serve.sh: building //server:ssimd_server for the ${config} configuration" >&2
"${bazel[@]}" build "${flags[@]}" //server:ssimd_server
bin=$("${bazel[@]}" info "${flags[@]}" bazel-bin 2>/dev/null)/server/ssimd_server

port=${SSIMD_PORT:-50051}
metrics_port=${SSIMD_METRICS_PORT:-9090}
echo "serve.sh: gRPC on 127.0.0.1:${port}, metrics on http://127.0.0.1:${metrics_port}/metrics" >&2
exec "$bin" --address="127.0.0.1:${port}" --metrics_address="127.0.0.1:${metrics_port}" "$@"
