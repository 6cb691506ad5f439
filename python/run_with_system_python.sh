#!/usr/bin/env bash
# Runs a Python test with Debian's python3, which has python3-grpcio and python3-protobuf (the
# interpreter on PATH may be another one without them).
set -euo pipefail
python=$1
shift
exec "$python" "$@"
