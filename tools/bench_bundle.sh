#!/usr/bin/env bash
# The benchmark bundle (./bundle_bench/), as earlier results' COMMAND.md files name it: the same as
# tools/bundle_gpu.sh --bench, which holds the logic and describes the bundle.
exec "$(dirname "$0")/bundle_gpu.sh" --bench "$@"
