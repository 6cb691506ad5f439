#!/usr/bin/env bash
# Regenerates the Python stubs into a scratch directory and compares them with the checked-in ones.
set -euo pipefail
protoc=$(realpath "$1")
plugin=$(realpath "$2")
out=$(mktemp -d "${TEST_TMPDIR:-/tmp}/stubs.XXXXXX")
PROTOC=$protoc GRPC_PYTHON_PLUGIN=$plugin python/generate_stubs.sh "$out"
for f in ssimd/v1/ssimd_pb2.py ssimd/v1/ssimd_pb2.pyi ssimd/v1/ssimd_pb2_grpc.py; do
  if ! cmp -s "$out/$f" "python/$f"; then
    echo "python/$f is out of date with proto/ssimd/v1/ssimd.proto: run python/generate_stubs.sh"
    diff "$out/$f" "python/$f" | head -20
    exit 1
  fi
done
echo "python stubs up to date"
