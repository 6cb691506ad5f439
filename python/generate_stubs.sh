#!/usr/bin/env bash
# Regenerates the checked-in Python stubs of ssimd.v1 (python/ssimd/v1/ssimd_pb2{,_grpc}.py, and
# ssimd_pb2.pyi, the messages' types for type checkers) with Debian's protoc and
# grpc_python_plugin, the versions python3-protobuf and python3-grpcio accept.
# Usage: python/generate_stubs.sh [OUT_DIR]   (default: python/ beside this script)
# //python:stubs_up_to_date_test fails when the checked-in files differ from a fresh run.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
out=${1:-$here}
protoc=${PROTOC:-protoc}
plugin=${GRPC_PYTHON_PLUGIN:-$(command -v grpc_python_plugin)}
mkdir -p "$out"
"$protoc" --proto_path="$repo/proto" --python_out="$out" --pyi_out="$out" --grpc_python_out="$out" \
  --plugin=protoc-gen-grpc_python="$plugin" ssimd/v1/ssimd.proto
