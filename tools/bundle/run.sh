#!/usr/bin/env bash
# Runs one bundled program with the bundled libraries: run.sh PROGRAM [ARGS...]
# Copied into each bundle by tools/bundle_gpu.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
export LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PATH="$here/bin:$PATH"
if [[ -z "${SSIMD_REFERENCE_DIR:-}" && -f "$here/reference/expected_scores.json" ]]; then
  export SSIMD_REFERENCE_DIR="$here/reference"
fi
program="${1:?usage: run.sh PROGRAM [ARGS...] (programs: $(ls "$here/bin" | tr '\n' ' '))}"
shift
exec "$here/bin/$program" "$@"
